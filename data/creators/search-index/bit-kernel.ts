import { BIT_KERNEL_BASE64 } from './bit-kernel.bytes.js';

interface Exports {
  and2(a: number, b: number, out: number, n: number): number;
  and3(a: number, b: number, c: number, out: number, n: number): number;
  and4(a: number, b: number, c: number, d: number, out: number, n: number): number;
  andNot(a: number, b: number, out: number, n: number): void;
  or(a: number, b: number, out: number, n: number): void;
  count(a: number, n: number): number;
  countAnd(a: number, b: number, n: number): number;
  setBits(list: number, n: number, out: number): void;
  clearBits(list: number, n: number, out: number): void;
}

/** Bit arrays a kernel holds for one index's searches at once (ScratchSets makes any more on the heap). */
const SLOTS = 32;
/** Operands from outside its memory (the files' bit arrays) copied in for one call: an AND takes four at a time. */
const STAGING = 4;
/** The most memory one kernel takes: past it (bit arrays of over about 470M positions each), fewer slots. */
const MAX_BYTES = 2 ** 31;
const PAGE = 65_536;

let compiled: WebAssembly.Module | null = null;

/**
 * The word loops of a search's bit arrays (intersections with their counts, AND
 * NOT, OR, counts, the members two arrays share) in WebAssembly (bit-kernel.wat),
 * sixteen bytes an instruction with the hardware's popcount, over arrays in its
 * own memory: five times faster than the same loops in JavaScript, which count
 * bits with shifts and masks (docs/search.md, "The bit-array kernel"); and
 * listed positions set or cleared one by one without JavaScript's checks.
 *
 * It holds the bit arrays a search writes (ScratchSets' slots). An operand from
 * elsewhere (a bit array of the index files, mapped or read) is copied into a
 * staging slot first, a memory copy far cheaper than the JavaScript loop. The
 * answers are the JavaScript loops' exactly (the property tests compare them).
 */
export class BitKernel {
  private static readonly byBuffer = new WeakMap<ArrayBuffer, BitKernel>();
  private readonly exports: Exports;
  private readonly memory: WebAssembly.Memory;
  private readonly words: number;
  /** Each slot's bytes: its words padded with zero words to a multiple of 16 bytes. */
  private readonly bytes: number;
  private readonly slots: number;
  private handedOut = 0;

  private constructor(words: number, slots: number) {
    this.words = words;
    this.bytes = Math.ceil((words * 4) / 16) * 16;
    this.slots = slots;
    this.memory = new WebAssembly.Memory({ initial: Math.ceil(((slots + STAGING) * this.bytes) / PAGE) });
    compiled ??= new WebAssembly.Module(Buffer.from(BIT_KERNEL_BASE64, 'base64'));
    this.exports = new WebAssembly.Instance(compiled, { env: { memory: this.memory } }).exports as unknown as Exports;
    BitKernel.byBuffer.set(this.memory.buffer, this);
  }

  /** A kernel for bit arrays of `words` words; null when none can be made (no SIMD, or arrays too large). */
  static create(words: number): BitKernel | null {
    const bytes = Math.ceil((words * 4) / 16) * 16;
    const slots = Math.min(SLOTS, Math.floor(MAX_BYTES / Math.max(16, bytes)) - STAGING);
    if (words === 0 || slots < 1) return null;
    try {
      return new BitKernel(words, slots);
    } catch {
      // WebAssembly without SIMD, or no memory to reserve: the JavaScript loops answer
      return null;
    }
  }

  /** The kernel holding `words` in its memory, if one does. */
  static holding(words: Uint32Array): BitKernel | undefined {
    const kernel = BitKernel.byBuffer.get(words.buffer as ArrayBuffer);
    return kernel && words.length === kernel.words ? kernel : undefined;
  }

  /** A new bit array of zeros in the kernel's memory; null when every slot is handed out. */
  slot(): Uint32Array | null {
    if (this.handedOut === this.slots) return null;
    return new Uint32Array(this.memory.buffer, STAGING * this.bytes + this.handedOut++ * this.bytes, this.words);
  }

  /**
   * The AND of `sets` (at least two, each of this kernel's length) written to `out` (one of its slots); answers
   * its count.
   */
  intersect(sets: readonly Uint32Array[], out: Uint32Array): number {
    const n = this.bytes;
    const target = this.own(out);
    let count = 0;
    // the first four (or fewer) into `out`, then `out` with up to three more at a time: two operands at least each
    for (let i = 0; i < sets.length; ) {
      const group: number[] = i === 0 ? [] : [target];
      let staged = 0;
      while (i < sets.length && group.length < 4) group.push(this.address(sets[i++]!, staged++));
      const [a, b, c, d] = group as [number, number, number, number];
      count =
        group.length === 4
          ? this.exports.and4(a, b, c, d, target, n)
          : group.length === 3
            ? this.exports.and3(a, b, c, target, n)
            : this.exports.and2(a, b, target, n);
    }
    return count;
  }

  /** `into` (one of its slots) AND NOT `other`, in place. */
  andNot(into: Uint32Array, other: Uint32Array): void {
    const target = this.own(into);
    this.exports.andNot(target, this.address(other, 0), target, this.bytes);
  }

  /** `into` (one of its slots) OR `other`, in place. */
  or(into: Uint32Array, other: Uint32Array): void {
    const target = this.own(into);
    this.exports.or(target, this.address(other, 0), target, this.bytes);
  }

  /**
   * Sets (`on`) or clears in `into` (one of its slots) each of `positions` (all below its size), copied into
   * staging a slot's words at a time: a scattered write per position, without JavaScript's checks.
   */
  write(into: Uint32Array, positions: Int32Array, on: boolean): void {
    const target = this.own(into);
    // a staging slot's words only, never its padding (which stays zero for the operands copied in)
    const staged = new Int32Array(this.memory.buffer, 0, this.words);
    for (let from = 0; from < positions.length; from += this.words) {
      const part = positions.subarray(from, Math.min(positions.length, from + this.words));
      staged.set(part);
      if (on) this.exports.setBits(0, part.length, target);
      else this.exports.clearBits(0, part.length, target);
    }
  }

  /** How many positions `a` and `b` share (one of them, at least, among its slots). */
  countBoth(a: Uint32Array, b: Uint32Array): number {
    return this.exports.countAnd(this.address(a, 0), this.address(b, 1), this.bytes);
  }

  /** How many bits one of its slots holds. */
  count(set: Uint32Array): number {
    return this.exports.count(this.own(set), this.bytes);
  }

  /** The address of one of its own arrays. */
  private own(words: Uint32Array): number {
    if (words.buffer !== this.memory.buffer) throw new Error('bit kernel: not an array of its memory');
    return words.byteOffset;
  }

  /** The address of `words`: its own place when in this memory, else its copy in staging slot `k`. */
  private address(words: Uint32Array, k: number): number {
    if (words.buffer === this.memory.buffer) return words.byteOffset;
    if (words.length !== this.words) throw new Error('bit kernel: an operand of another length');
    const at = k * this.bytes;
    // the staging slot's padding words stay zero: only operands of this length are copied in
    new Uint32Array(this.memory.buffer, at, this.words).set(words);
    return at;
  }
}
