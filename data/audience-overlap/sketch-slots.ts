import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Store } from '../store.js';
import {
  SKETCH_K,
  type StoredSketch,
  selectSketchHashes,
  streamSketches,
  streamSketchesOf,
} from './follower-sketch.queries.js';

/**
 * The sketches in fixed slots in a file beside the store (`follower-sketches.slots`
 * in the store's folder, docs/audience-overlap.md, "The sketch slots"): slot i holds creator i's sketch,
 * so reading ten is ten 16 KB reads, where DuckDB reads a list column a vector
 * of 2,048 rows (32 MB of hashes) at a time. A slot is a copy, never the truth:
 * it answers only when its sample size and checksum are the ones the store holds
 * now (the caller reads those), and its own content check passes (a slot being
 * written while read fails it). Slots are filled from what the store answered
 * (a miss is written back), by a load after its commit for the creators whose sketch
 * it rewrote (`writeSketchSlots`), by a demo seed, or all at once by `fill`.
 *
 * Layout: a 4,096-byte header (`HEADER`), then per creator id `SLOT_BYTES`:
 * u32 written flag, u32 hash count, u32 sample size, u32 content check, f64
 * checksum, then `SKETCH_K` f64 hashes (little-endian, as Float64Array reads them).
 * Ids never written read as zeros (a sparse file), so as empty slots.
 */
export class SketchSlots {
  private constructor(private readonly file: FileHandle) {}

  /** Opens (or makes) the slots file at `path`; a file of another layout is emptied. */
  static async open(path: string): Promise<SketchSlots> {
    const file = await open(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    try {
      const head = new Uint8Array(HEADER_BYTES);
      const { bytesRead } = await file.read(head, 0, HEADER_BYTES, 0);
      if (bytesRead !== HEADER_BYTES || !sameBytes(head, HEADER)) {
        await file.truncate(0);
        await file.write(HEADER, 0, HEADER_BYTES, 0);
      }
      return new SketchSlots(file);
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /**
   * The sketches of the creators in `expected` (creator id → the store's sample
   * size and checksum) whose slots hold exactly those; the others are left out.
   */
  async read(
    expected: ReadonlyMap<number, { sample_size: number; checksum: number | null }>,
  ): Promise<Map<number, { sample_size: number; hashes: number[] }>> {
    const found = new Map<number, { sample_size: number; hashes: number[] }>();
    await Promise.all(
      [...expected].map(async ([id, want]) => {
        if (want.checksum === null || !inRange(id)) return;
        const slot = new ArrayBuffer(SLOT_BYTES);
        const { bytesRead } = await this.file.read(new Uint8Array(slot), 0, SLOT_BYTES, slotOffset(id));
        if (bytesRead !== SLOT_BYTES) return;
        const hashes = decodeSlot(slot, want.sample_size, want.checksum);
        if (hashes) found.set(id, { sample_size: want.sample_size, hashes });
      }),
    );
    return found;
  }

  /** Writes the given sketches into their slots (those without a checksum, or an id out of range, are skipped). */
  async write(sketches: ReadonlyMap<number, StoredSketch>): Promise<void> {
    for (const [id, sketch] of sketches) {
      if (sketch.checksum === null || !inRange(id) || sketch.hashes.length > SKETCH_K) continue;
      await this.file.write(encodeSlot(sketch), 0, SLOT_BYTES, slotOffset(id));
    }
  }

  /** Writes every stored sketch into its slot (a bench or an operator fills the file at once; requests fill it as they read). */
  async fill(store: Store): Promise<number> {
    let written = 0;
    for await (const rows of streamSketches(store)) {
      await this.write(new Map(rows.map((r) => [r.creator_id, r])));
      written += rows.length;
    }
    return written;
  }

  async close(): Promise<void> {
    await this.file.close();
  }
}

/**
 * The slots beside a store's file, opened once per folder and kept for the process (null: an
 * in-memory store, or a file that cannot be opened, where the store answers alone). One file
 * per folder, not per store file: a replica's snapshots (data/snapshots/) follow one another in
 * one folder, and a slot answers only for the sketch the store it is read for holds, so they
 * share it rather than leave 16 GB behind each pruned snapshot.
 */
export function sketchSlotsOf(store: Store): Promise<SketchSlots | null> {
  if (store.path === ':memory:') return Promise.resolve(null);
  const path = slotsPathOf(store.path);
  let slots = opened.get(path);
  if (!slots) {
    slots = SketchSlots.open(path).catch(() => null);
    opened.set(path, slots);
  }
  return slots;
}

/**
 * Writes the slots of the given creators from the sketches the store holds now (0 written
 * without a slots file): a follower-samples load does so after its commit for the creators
 * whose sketch it rewrote, so their first overlap request reads a slot, not the store's lists
 * (docs/audience-overlap.md, "The sketch slots"). Answers the slots written.
 */
export async function writeSketchSlots(store: Store, creatorIds: readonly number[]): Promise<number> {
  const slots = await sketchSlotsOf(store);
  if (!slots || creatorIds.length === 0) return 0;
  if (creatorIds.length <= FEW) {
    const stored = await selectSketchHashes(store, creatorIds);
    await slots.write(stored);
    return stored.size;
  }
  let written = 0;
  for await (const rows of streamSketchesOf(store, creatorIds)) {
    await slots.write(new Map(rows.map((r) => [r.creator_id, r])));
    written += rows.length;
  }
  return written;
}

/**
 * Fills the slots of every stored sketch (0 without a slots file): a demo seed does so once
 * it is done, so a fresh store's first overlap requests read slots (docs/audience-overlap.md,
 * "The sketch slots"). Answers the slots written.
 */
export async function fillSketchSlots(store: Store): Promise<number> {
  const slots = await sketchSlotsOf(store);
  return slots ? slots.fill(store) : 0;
}

/** Up to this many creators are read by id (a filter DuckDB pushes into its scan); more in one pass joined to the ids. */
const FEW = 256;

const opened = new Map<string, Promise<SketchSlots | null>>();

/** The slots file of the store file at `storePath`. */
export function slotsPathOf(storePath: string): string {
  return join(dirname(storePath), 'follower-sketches.slots');
}

const HEADER_BYTES = 4096;
const HEADER = (() => {
  const head = new Uint8Array(HEADER_BYTES);
  head.set(new TextEncoder().encode(`cds follower sketch slots 1 k=${SKETCH_K}\n`));
  return head;
})();
const SLOT_HEAD_BYTES = 24;
const SLOT_BYTES = SLOT_HEAD_BYTES + SKETCH_K * 8;
/** Creator ids past this keep no slot (the file stays under 2^24 slots, 275 GB of address space, sparse). */
const MAX_SLOT_ID = 1 << 24;

function inRange(id: number): boolean {
  return Number.isInteger(id) && id >= 0 && id < MAX_SLOT_ID;
}

/** Where creator `id`'s slot starts in the file. */
export function slotOffset(id: number): number {
  return HEADER_BYTES + id * SLOT_BYTES;
}

function encodeSlot(sketch: StoredSketch): Uint8Array {
  const slot = new ArrayBuffer(SLOT_BYTES);
  const head = new Uint32Array(slot, 0, 4);
  new Float64Array(slot, 16, 1)[0] = sketch.checksum ?? 0;
  new Float64Array(slot, SLOT_HEAD_BYTES, sketch.hashes.length).set(sketch.hashes);
  head[0] = 1;
  head[1] = sketch.hashes.length;
  head[2] = sketch.sample_size;
  head[3] = contentCheck(slot, sketch.hashes.length);
  return new Uint8Array(slot);
}

/** The slot's hashes when it is written, holds this sample size and checksum, and passes its content check; else null. */
function decodeSlot(slot: ArrayBuffer, sampleSize: number, checksum: number): number[] | null {
  const head = new Uint32Array(slot, 0, 4);
  const count = head[1] ?? 0;
  if (head[0] !== 1 || head[2] !== sampleSize || count > SKETCH_K) return null;
  if (new Float64Array(slot, 16, 1)[0] !== checksum || head[3] !== contentCheck(slot, count)) return null;
  return Array.from(new Float64Array(slot, SLOT_HEAD_BYTES, count));
}

/** FNV-1a over the slot's count, sample size, checksum and hashes, as 32-bit words. */
function contentCheck(slot: ArrayBuffer, count: number): number {
  const words = new Uint32Array(slot, 4, 1 + 1 + 1 + 2 + count * 2);
  let h = 0x811c9dc5;
  for (let i = 0; i < words.length; i++) {
    if (i === 2) continue; // the check's own word
    h = Math.imul(h ^ (words[i] ?? 0), 0x01000193);
  }
  return h >>> 0;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
