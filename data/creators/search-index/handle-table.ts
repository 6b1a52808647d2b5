import { BLOCK_BITS, type Block, type PackedStrings } from './packed-strings.js';
import { SlicedBuilds, type Steps } from './sliced-work.js';

/**
 * Positions by handle: an open-addressing table over the packed handles' UTF-8
 * bytes, so a request finds a creator by handle in memory instead of asking the
 * store (docs/audience-overlap.md). 8 bytes a creator (a table of twice the
 * creators' count, 4 bytes a slot); built once per index base from the bytes
 * the index already holds, with no string per handle.
 */
export class HandleTable {
  private constructor(
    private readonly handles: PackedStrings,
    private readonly slots: Int32Array,
  ) {}

  /**
   * The table of an index base's handles (built at its first use, then shared by the base's deltas); a build
   * in progress (`prepare`) is finished now, not started again.
   */
  static of(handles: PackedStrings): HandleTable {
    return tables.now(handles);
  }

  /**
   * The table built in slices of about `sliceMs` that let the event loop serve requests between them (at 1M
   * creators the whole build is most of a second: docs/search.md); a second caller joins the first's build.
   */
  static prepare(handles: PackedStrings, sliceMs = 10): Promise<HandleTable> {
    return tables.prepared(handles, sliceMs);
  }

  /** The table's slots, as the index files hold them (index-files.ts). */
  get stored(): Int32Array {
    return this.slots;
  }

  /** Takes the table of `handles` from its slots as the index files hold them, instead of building it. */
  static adopt(handles: PackedStrings, slots: Int32Array): void {
    const { length } = handles.parts;
    if (slots.length !== tableSize(length))
      throw new Error(`a handle table of ${slots.length} slots for ${length} handles`);
    tables.set(handles, new HandleTable(handles, slots));
  }

  /** Every position holding `handle` (a handle can be on several platforms), ascending. */
  positions(handle: string): number[] {
    const key = Buffer.from(handle, 'utf8');
    const { blocks } = this.handles.parts;
    const mask = this.slots.length - 1;
    const out: number[] = [];
    for (let s = hashBytes(key, 0, key.length) & mask; ; s = (s + 1) & mask) {
      const p = this.slots[s]!;
      if (p < 0) break;
      const block = blocks[p >>> BLOCK_BITS]!;
      const i = p & ((1 << BLOCK_BITS) - 1);
      if (!isNull(block, i) && key.equals(block.bytes.subarray(block.offsets[i], block.offsets[i + 1]))) out.push(p);
    }
    return out.sort((a, b) => a - b);
  }

  /** Fills the table's slots, yielding every few thousand handles (sliced-work.ts). */
  static *build(handles: PackedStrings): Steps<HandleTable> {
    const { blocks, length } = handles.parts;
    const size = tableSize(length);
    const slots = new Int32Array(size).fill(-1);
    const mask = size - 1;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b]!;
      const n = block.offsets.length - 1;
      for (let i = 0; i < n; i++) {
        if ((i & 8191) === 8191) yield;
        if (isNull(block, i)) continue;
        let s = hashBytes(block.bytes, block.offsets[i]!, block.offsets[i + 1]!) & mask;
        while (slots[s]! >= 0) s = (s + 1) & mask;
        slots[s] = (b << BLOCK_BITS) + i;
      }
    }
    return new HandleTable(handles, slots);
  }
}

/** The table of each handles' base, built once (a second caller joins a build in progress). */
const tables = new SlicedBuilds<PackedStrings, HandleTable>((handles) => HandleTable.build(handles));

/** Slots for `length` handles: a power of two, at least twice as many. */
function tableSize(length: number): number {
  let size = 16;
  while (size < length * 2) size *= 2;
  return size;
}

function isNull(block: Block, i: number): boolean {
  return block.nulls !== undefined && (block.nulls[i >> 3]! & (1 << (i & 7))) !== 0;
}

/** FNV-1a over bytes[from, to), finished with a multiply-shift so close handles spread over the table. */
function hashBytes(bytes: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  h ^= h >>> 16;
  return Math.imul(h, 0x85ebca6b) >>> 0;
}
