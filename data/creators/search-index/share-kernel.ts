import { Bitset } from './bitset.js';
import { NO_SHARE, type ShareColumn } from './share-column.js';
import { SHARE_KERNEL_BASE64 } from './share-kernel.bytes.js';
import { drain, type Steps } from './sliced-work.js';

/** At most this many columns are summed by one call (the age ranges are 7). */
const MAX_COLUMNS = 16;
/** The column table's bytes at the start of the memory: MAX_COLUMNS addresses. */
const TABLE_BYTES = MAX_COLUMNS * 4;
const PAGE = 65_536;
/** Positions copied between two yields of a build in steps. */
const STRIDE = 1 << 16;

interface Exports {
  /** `edges` 0: no sums equal to `e` written (share-kernel.wat). */
  sumCompare(cols: number, k: number, n: number, m: number, e: number, out: number, edges: number): number;
  edgeSums(cols: number, k: number, n: number, min: number, edges: number, out: number): number;
}

let compiled: WebAssembly.Module | null = null;

/**
 * Audience shares held a second time as 16-bit hundredths of a percent, in
 * WebAssembly memory, with a SIMD kernel (share-kernel.wat) that sums a
 * search's columns and compares the sums with its minimum, eight positions
 * an instruction: a broad audience filter over a million creators costs
 * under a millisecond, where the same loop over doubles in JavaScript costs
 * 2–15 ms (BENCHMARKS.md).
 *
 * The answers are the SQL's exactly. Only columns whose every share is a
 * hundredth between 0 and 100 are held (the pipeline rounds shares to
 * hundredths; docs/data-formats.md), so a sum of hundredths `s` is the SQL's
 * sum of doubles up to rounding far below 0.01. A minimum off the hundredths
 * is then decided by `s` alone; a minimum on one is decided by `s` except for
 * the sums equal to it, which are added up again as the SQL adds them (doubles,
 * in the columns' order) and compared as it compares them (over one column a
 * share equal to such a minimum is its very double, and passes). A minimum of 0 or
 * below, where holding no share differs from a share of 0 (both 0 in the
 * copies), passes every creator holding a share in one of the columns: the
 * union of a bit array per column made with its copy. A filter the kernel
 * cannot answer (a column not held, a minimum above 600) is answered by the
 * caller's own loop.
 */
export class ShareKernel {
  private readonly exports: Exports;
  private readonly memory: WebAssembly.Memory;
  /** Column address by the double column it copies. */
  private readonly addresses: Map<ShareColumn, number>;
  private readonly views: Map<ShareColumn, Uint16Array>;
  /** Per column, the positions holding a share (the copies hold no share and a share of 0 alike, as 0). */
  private readonly holders: Map<ShareColumn, Bitset>;
  /** Positions rounded up to a multiple of 32 (the columns' zero padding). */
  private readonly padded: number;
  private readonly out: number;
  private readonly equalOut: number;
  /** The columns it was asked to hold, held or not (`sharing` compares a new index's with them). */
  private inputs: readonly ShareColumn[] = [];

  private constructor(columns: readonly ShareColumn[], size: number, from?: ShareKernel) {
    if (from) {
      // the same memory and instance: searches run one at a time, so their scratch is shared too
      this.padded = from.padded;
      this.out = from.out;
      this.equalOut = from.equalOut;
      this.memory = from.memory;
      this.exports = from.exports;
      this.addresses = new Map();
      this.views = new Map();
      this.holders = new Map();
      return;
    }
    this.padded = Math.ceil(size / 32) * 32;
    const columnBytes = this.padded * 2;
    this.out = TABLE_BYTES + columns.length * columnBytes;
    this.equalOut = this.out + this.padded / 8;
    const bytes = this.equalOut + this.padded / 8;
    this.memory = new WebAssembly.Memory({ initial: Math.max(1, Math.ceil(bytes / PAGE)) });
    compiled ??= new WebAssembly.Module(Buffer.from(SHARE_KERNEL_BASE64, 'base64'));
    this.exports = new WebAssembly.Instance(compiled, { env: { memory: this.memory } }).exports as unknown as Exports;
    this.addresses = new Map();
    this.views = new Map();
    this.holders = new Map();
  }

  /** Copies the columns into the kernel's memory, yielding every few thousand positions (sliced-work.ts). */
  private *fill(columns: readonly ShareColumn[], size: number): Steps<void> {
    const columnBytes = this.padded * 2;
    for (const [i, column] of columns.entries()) {
      const address = TABLE_BYTES + i * columnBytes;
      const view = new Uint16Array(this.memory.buffer, address, this.padded);
      const holds = new Bitset(size);
      const words = holds.words;
      for (let from = 0; from < size; from += STRIDE) {
        const to = Math.min(size, from + STRIDE);
        if (column instanceof Uint16Array)
          for (let p = from; p < to; p++) {
            const v = column[p]!;
            if (v === NO_SHARE) continue;
            view[p] = v;
            words[p >>> 5]! |= 1 << (p & 31);
          }
        else
          for (let p = from; p < to; p++) {
            const v = column[p]!;
            if (v !== v) continue;
            view[p] = Math.round(v * 100);
            words[p >>> 5]! |= 1 << (p & 31);
          }
        yield;
      }
      this.addresses.set(column, address);
      this.views.set(column, view);
      this.holders.set(column, holds);
    }
  }

  /** A kernel holding the columns whose shares are all hundredths from 0 to 100 (null when none is). */
  static of(columns: readonly ShareColumn[], size: number): ShareKernel | null {
    return drain(ShareKernel.build(columns, size));
  }

  /** As `of`, in steps that yield every few thousand positions (a reader opening files beside requests). */
  static *build(columns: readonly ShareColumn[], size: number): Steps<ShareKernel | null> {
    const held: ShareColumn[] = [];
    // a 16-bit column holds hundredths from 0 to 100 only (share-column.ts)
    for (const c of columns) if (size > 0 && (c instanceof Uint16Array || (yield* inHundredths(c)))) held.push(c);
    if (held.length === 0) return null;
    const kernel = new ShareKernel(held, size);
    yield* kernel.fill(held, size);
    kernel.inputs = columns;
    return kernel;
  }

  /**
   * This kernel's copies for `columns` when each is the very bytes of the column this kernel was asked to hold
   * at its place (views over the same buffer: the sections a new index's files share with the index opened
   * before, docs/search.md "Opening"): no copy; null otherwise.
   */
  sharing(columns: readonly ShareColumn[]): ShareKernel | null {
    const same = (a: ShareColumn, b: ShareColumn | undefined): boolean =>
      b !== undefined &&
      a.constructor === b.constructor &&
      a.buffer === b.buffer &&
      a.byteOffset === b.byteOffset &&
      a.length === b.length;
    if (columns.length !== this.inputs.length || !columns.every((c, i) => same(c, this.inputs[i]))) return null;
    const kernel = new ShareKernel(columns, 0, this);
    columns.forEach((c, i) => {
      const old = this.inputs[i]!;
      const address = this.addresses.get(old);
      if (address === undefined) return;
      kernel.addresses.set(c, address);
      kernel.views.set(c, this.views.get(old)!);
      kernel.holders.set(c, this.holders.get(old)!);
    });
    kernel.inputs = columns;
    return kernel;
  }

  /**
   * Writes into `set` (all of whose words it replaces) the positions whose
   * shares in `columns`, summed in that order, pass `minPct` (without it:
   * above 0), and returns how many passed; null, writing nothing, when the
   * kernel cannot answer (see the class).
   */
  passing(columns: readonly ShareColumn[], minPct: number | undefined, set: Bitset): number | null {
    if (columns.length === 0 || columns.length > MAX_COLUMNS) return null;
    const addresses: number[] = [];
    for (const c of columns) {
      const address = this.addresses.get(c);
      if (address === undefined) return null;
      addresses.push(address);
    }
    // shares are never negative here: a minimum of 0 or below passes every creator holding one in a column
    if (minPct !== undefined && minPct <= 0) {
      set.words.fill(0);
      for (const c of columns) set.orInPlace(this.holders.get(c)!);
      return set.count();
    }
    if (minPct !== undefined && !(minPct > 0 && minPct <= 600)) return null;
    // the least sum in hundredths that certainly passes, and the one sum that may (equal to the minimum)
    let least = 1;
    let onEdge = -1;
    if (minPct !== undefined) {
      const x = minPct * 100;
      const nearest = Math.round(x);
      if (Math.abs(x - nearest) > 1e-6) least = Math.ceil(x);
      // one column, a minimum that is a hundredth's own double: a share equal to it is that double, and passes
      else if (addresses.length === 1 && minPct === nearest / 100) least = nearest;
      else {
        least = nearest + 1;
        onEdge = nearest;
      }
    }
    new Int32Array(this.memory.buffer, 0, addresses.length).set(addresses);
    // the sums above the minimum, and those equal to it when they must be added again, in one pass
    const edges = onEdge > 0 ? this.equalOut : 0;
    let count = this.exports.sumCompare(0, addresses.length, this.padded, least, onEdge, this.out, edges);
    // the sums equal to the minimum added again as doubles, in the columns' order, as the SQL adds them
    if (edges !== 0) count += this.exports.edgeSums(0, addresses.length, this.padded, minPct!, edges, this.out);
    set.words.set(new Uint32Array(this.memory.buffer, this.out, set.words.length));
    return count;
  }
}

/** Whether every share of the column (NaN: none) is a hundredth from 0 to 100, as the doubles the SQL holds. */
function* inHundredths(column: Float64Array): Steps<boolean> {
  for (let p = 0; p < column.length; p++) {
    if ((p & (STRIDE - 1)) === STRIDE - 1) yield;
    const v = column[p]!;
    if (v !== v) continue;
    if (!(v >= 0 && v <= 100) || Math.round(v * 100) / 100 !== v) return false;
  }
  return true;
}
