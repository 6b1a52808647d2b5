import { drain, type Steps } from './sliced-work.js';

/** Positions per block (as a shift): a block's text is one Buffer, its boundaries one Int32Array. */
export const BLOCK_BITS = 16;
const BLOCK = 1 << BLOCK_BITS;
/** A vocabulary up to this many bytes is decoded in one piece (a few milliseconds), then sliced. */
const ONE_DECODE_MAX = 1 << 26;

export interface Block {
  bytes: Buffer;
  /** Where each position's UTF-8 starts; entry `n` is the end of the last one. */
  offsets: Int32Array;
  /** Positions holding NULL, one bit each; absent when the block has none. */
  nulls?: Uint8Array;
}

/**
 * Strings by position (handles, display names), packed as UTF-8 in blocks of
 * 65,536: two objects per block instead of one heap string per position. At
 * 10M creators that takes 20M strings out of the garbage collector's marking
 * (its full collections were the index's p99) and about half the memory. A
 * string is decoded when read, which only a page's items do.
 */
export class PackedStrings {
  private constructor(
    private readonly blocks: readonly Block[],
    readonly length: number,
  ) {}

  /** The string at `position`, or null (also for a position out of range). */
  get(position: number): string | null {
    if (!(position >= 0 && position < this.length)) return null;
    const block = this.blocks[position >>> BLOCK_BITS] as Block;
    const i = position & (BLOCK - 1);
    if (block.nulls && (block.nulls[i >> 3]! & (1 << (i & 7))) !== 0) return null;
    return block.bytes.toString('utf8', block.offsets[i], block.offsets[i + 1]);
  }

  /** The blocks as they are held (what the index files write, index-files.ts). */
  get parts(): { blocks: readonly Block[]; length: number } {
    return { blocks: this.blocks, length: this.length };
  }

  /** Strings over blocks read back from the index files (views, not copies). */
  static of(blocks: readonly Block[], length: number): PackedStrings {
    return new PackedStrings(blocks, length);
  }

  /** A builder taking the strings in position order, from 0. */
  static builder(): PackedStringsBuilder {
    return new PackedStringsBuilder((blocks, length) => new PackedStrings(blocks, length));
  }
}

/** Collects one block's strings at a time and packs it when full (and at `build`). */
export class PackedStringsBuilder {
  private readonly blocks: Block[] = [];
  private pending: Array<string | null> = [];
  private length = 0;

  constructor(private readonly make: (blocks: readonly Block[], length: number) => PackedStrings) {}

  push(value: string | null): void {
    this.pending.push(value);
    this.length++;
    if (this.pending.length === BLOCK) this.flush();
  }

  build(): PackedStrings {
    if (this.pending.length > 0) this.flush();
    return this.make(this.blocks, this.length);
  }

  private flush(): void {
    const values = this.pending;
    let total = 0;
    for (const v of values) if (v !== null) total += Buffer.byteLength(v, 'utf8');
    const bytes = Buffer.allocUnsafe(total);
    const offsets = new Int32Array(values.length + 1);
    let nulls: Uint8Array | undefined;
    let at = 0;
    values.forEach((v, i) => {
      offsets[i] = at;
      if (v === null) {
        nulls ??= new Uint8Array((values.length + 7) >> 3);
        nulls[i >> 3]! |= 1 << (i & 7);
      } else {
        at += bytes.write(v, at, 'utf8');
      }
    });
    offsets[values.length] = at;
    this.blocks.push(nulls ? { bytes, offsets, nulls } : { bytes, offsets });
    this.pending = [];
  }
}

/** A list of strings, read by index: an array of heap strings while built, a packed buffer once opened from files. */
export interface StringList {
  readonly length: number;
  get(i: number): string;
  /** The indexes of the strings that contain `word` (a substring), ascending. */
  containing(word: string): number[];
}

/** A StringList over an array (what a build makes). */
export class ArrayStrings implements StringList {
  constructor(readonly values: readonly string[]) {}

  get length(): number {
    return this.values.length;
  }

  get(i: number): string {
    return this.values[i]!;
  }

  containing(word: string): number[] {
    const out: number[] = [];
    for (let t = 0; t < this.values.length; t++) if (this.values[t]!.includes(word)) out.push(t);
    return out;
  }
}

/**
 * Strings packed as UTF-8 in one buffer, string i at `bytes[offsets[i]..offsets[i+1])`:
 * no heap string per entry (a text index holds a token per creator handle). A
 * substring search runs over the bytes (UTF-8 is self-synchronising, so a
 * well-formed word matches the bytes exactly where it matches the text).
 */
export class PackedStringList implements StringList {
  constructor(
    readonly bytes: Uint8Array,
    readonly offsets: Int32Array,
  ) {}

  static of(values: readonly string[]): PackedStringList {
    const offsets = new Int32Array(values.length + 1);
    let total = 0;
    for (let i = 0; i < values.length; i++) total += Buffer.byteLength(values[i]!, 'utf8');
    const bytes = Buffer.allocUnsafe(total);
    let at = 0;
    for (let i = 0; i < values.length; i++) {
      offsets[i] = at;
      at += bytes.write(values[i]!, at, 'utf8');
    }
    offsets[values.length] = at;
    return new PackedStringList(bytes, offsets);
  }

  get length(): number {
    return this.offsets.length - 1;
  }

  get(i: number): string {
    return Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength).toString(
      'utf8',
      this.offsets[i],
      this.offsets[i + 1],
    );
  }

  /** Every string, decoded (a vocabulary searched by binary search keeps heap strings). */
  toArray(): string[] {
    return drain(this.toArraySteps());
  }

  /** As `toArray`, yielding every few thousand strings (sliced-work.ts: a reader opening files beside requests). */
  *toArraySteps(): Steps<string[]> {
    const buffer = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    const out = new Array<string>(this.length);
    // ASCII (most vocabularies): each string a slice of one decode of the whole buffer (bytes are characters)
    const all = buffer.length <= ONE_DECODE_MAX ? buffer.toString('utf8') : null;
    const ascii = all !== null && all.length === buffer.length;
    for (let i = 0; i < out.length; i++) {
      if ((i & 8191) === 8191) yield;
      out[i] = ascii
        ? all.slice(this.offsets[i], this.offsets[i + 1])
        : buffer.toString('utf8', this.offsets[i], this.offsets[i + 1]);
    }
    return out;
  }

  containing(word: string): number[] {
    const out: number[] = [];
    const needle = Buffer.from(word, 'utf8');
    const haystack = Buffer.from(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength);
    if (needle.length === 0) return Array.from({ length: this.length }, (_, i) => i);
    let at = haystack.indexOf(needle, 0);
    while (at >= 0) {
      const t = this.stringAt(at);
      const end = this.offsets[t + 1]!;
      // a match running past the string's end spans two strings: not a match
      if (at + needle.length <= end) {
        out.push(t);
        at = haystack.indexOf(needle, end);
      } else {
        at = haystack.indexOf(needle, at + 1);
      }
    }
    return out;
  }

  /** The string whose bytes hold byte `at`: the last one starting at or before it (an empty one starts where the next does). */
  private stringAt(at: number): number {
    let lo = 0;
    let hi = this.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.offsets[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }
}
