import { BitKernel } from './bit-kernel.js';

/**
 * A fixed-size set of row positions as a dense bit array. Intersections and
 * counts work a machine word at a time, so combining the categorical filters of
 * a search costs N/32 word operations whatever the filters match. A set held
 * by a bit kernel (a search's scratch set, see ScratchSets) has its word loops
 * run there, sixteen bytes at a time.
 */
export class Bitset {
  readonly words: Uint32Array;

  constructor(
    readonly size: number,
    words?: Uint32Array,
  ) {
    this.words = words ?? new Uint32Array((size + 31) >>> 5);
  }

  /** A set holding `positions` (any order); written into `into` (cleared first) when given. */
  static of(size: number, positions: ArrayLike<number>, into?: Bitset): Bitset {
    const set = into ?? new Bitset(size);
    if (into) into.words.fill(0);
    if (positions instanceof Int32Array) return set.addAll(positions);
    for (let i = 0; i < positions.length; i++) set.add(positions[i]!);
    return set;
  }

  /** Every one of `positions` added. */
  addAll(positions: Int32Array): this {
    const kernel = BitKernel.holding(this.words);
    if (kernel) kernel.write(this.words, positions, true);
    else for (let i = 0; i < positions.length; i++) this.add(positions[i]!);
    return this;
  }

  /** Every one of `positions` removed. */
  removeAll(positions: Int32Array): this {
    const kernel = BitKernel.holding(this.words);
    if (kernel) kernel.write(this.words, positions, false);
    else for (let i = 0; i < positions.length; i++) this.remove(positions[i]!);
    return this;
  }

  add(position: number): void {
    this.words[position >>> 5]! |= 1 << (position & 31);
  }

  remove(position: number): void {
    this.words[position >>> 5]! &= ~(1 << (position & 31));
  }

  has(position: number): boolean {
    return (this.words[position >>> 5]! & (1 << (position & 31))) !== 0;
  }

  /** This set without the members of `other`, in place. */
  andNotInPlace(other: Bitset): this {
    const kernel = BitKernel.holding(this.words);
    if (kernel) {
      kernel.andNot(this.words, other.words);
      return this;
    }
    const a = this.words;
    const b = other.words;
    for (let i = 0; i < a.length; i++) a[i]! &= ~b[i]!;
    return this;
  }

  /** This set widened by the members of `other`, in place. */
  orInPlace(other: Bitset): this {
    const kernel = BitKernel.holding(this.words);
    if (kernel) {
      kernel.or(this.words, other.words);
      return this;
    }
    const a = this.words;
    const b = other.words;
    for (let i = 0; i < a.length; i++) a[i]! |= b[i]!;
    return this;
  }

  /**
   * The intersection of `sets` (at least one) and its size, in one pass over
   * the words: no intermediate copies, the count taken as the words are made. The sets are read, never changed.
   */
  static intersect(sets: readonly Bitset[], into?: Bitset): { set: Bitset; count: number } {
    const first = sets[0]!;
    // one set is its own intersection (sets are never changed once built, so it can be shared)
    if (sets.length === 1) return { set: first, count: first.count() };
    const kernel = into && BitKernel.holding(into.words);
    if (kernel)
      return {
        set: into,
        count: kernel.intersect(
          sets.map((s) => s.words),
          into.words,
        ),
      };
    const out = into?.words ?? new Uint32Array(first.words.length);
    const words = sets.map((s) => s.words);
    let n = 0;
    // two words a step (popcount2); an odd last word alone
    const even = out.length & ~1;
    if (words.length === 2) {
      const [a, b] = words as [Uint32Array, Uint32Array];
      for (let i = 0; i < even; i += 2) n += popcount2((out[i] = a[i]! & b[i]!), (out[i + 1] = a[i + 1]! & b[i + 1]!));
      if (even < out.length) n += popcount((out[even] = a[even]! & b[even]!));
    } else if (words.length === 3) {
      const [a, b, c] = words as [Uint32Array, Uint32Array, Uint32Array];
      for (let i = 0; i < even; i += 2)
        n += popcount2((out[i] = a[i]! & b[i]! & c[i]!), (out[i + 1] = a[i + 1]! & b[i + 1]! & c[i + 1]!));
      if (even < out.length) n += popcount((out[even] = a[even]! & b[even]! & c[even]!));
    } else {
      for (let i = 0; i < out.length; i++) {
        let w = words[0]![i]!;
        for (let k = 1; k < words.length && w !== 0; k++) w &= words[k]![i]!;
        n += popcount((out[i] = w));
      }
    }
    return { set: into ?? new Bitset(first.size, out), count: n };
  }

  /** How many members `a` and `b` share: one pass over the words, nothing written. */
  static countBoth(a: Bitset, b: Bitset): number {
    const kernel = BitKernel.holding(a.words) ?? BitKernel.holding(b.words);
    if (kernel) return kernel.countBoth(a.words, b.words);
    const x = a.words;
    const y = b.words;
    let n = 0;
    const even = x.length & ~1;
    for (let i = 0; i < even; i += 2) n += popcount2(x[i]! & y[i]!, x[i + 1]! & y[i + 1]!);
    if (even < x.length) n += popcount(x[even]! & y[even]!);
    return n;
  }

  /** This set's members copied into `into` (same size), or into a new set. */
  copy(into?: Bitset): Bitset {
    if (!into) return this.clone();
    into.words.set(this.words);
    return into;
  }

  clone(): Bitset {
    return new Bitset(this.size, this.words.slice());
  }

  /** How many positions the set holds. */
  count(): number {
    const kernel = BitKernel.holding(this.words);
    if (kernel) return kernel.count(this.words);
    let n = 0;
    const w = this.words;
    const even = w.length & ~1;
    for (let i = 0; i < even; i += 2) n += popcount2(w[i]!, w[i + 1]!);
    if (even < w.length) n += popcount(w[even]!);
    return n;
  }

  /** Calls `fn` with each member in ascending order. */
  forEach(fn: (position: number) => void): void {
    const w = this.words;
    for (let i = 0; i < w.length; i++) {
      let word = w[i]!;
      while (word !== 0) {
        const low = word & -word;
        fn((i << 5) + (31 - Math.clz32(low)));
        word ^= low;
      }
    }
  }
}

/** popcount(x) + popcount(y), the two added up as bytes before the last step (about a quarter faster than two calls). */
function popcount2(x: number, y: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  let u = y - ((y >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  u = (u & 0x33333333) + ((u >>> 2) & 0x33333333);
  // each byte holds at most 8 + 8, and the four bytes' sum at most 64
  v = ((v + (v >>> 4)) & 0x0f0f0f0f) + ((u + (u >>> 4)) & 0x0f0f0f0f);
  return Math.imul(v, 0x01010101) >>> 24;
}

/** How many bits of the 32-bit word `x` are set. */
export function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/**
 * Bit arrays a search may write and drop (intersections, unions, broad ranges),
 * reused from one search to the next: a search runs synchronously, so nothing
 * outlives it, and a store of 10M creators would otherwise allocate (and the
 * collector reclaim) megabytes per request.
 */
export class ScratchSets {
  private readonly sets: Bitset[] = [];
  private used = 0;
  /** The kernel holding the sets (undefined: not made yet; null: none, the sets on the heap). */
  private kernel: BitKernel | null | undefined;

  constructor(private readonly size: number) {}

  /** Starts a search: every set is free again. */
  reset(): void {
    this.used = 0;
  }

  /**
   * `set` where a bit kernel runs its word loops: itself when one holds it, else its copy in a set taken here
   * (one memory copy, worth it before several passes over it), or itself when this store has no kernel.
   */
  held(set: Bitset): Bitset {
    if (BitKernel.holding(set.words)) return set;
    const taken = this.take();
    return BitKernel.holding(taken.words) ? set.copy(taken) : set;
  }

  /** A set no other part of the current search holds; its contents are whatever it held last. */
  take(): Bitset {
    if (this.used === this.sets.length) {
      // small sets stay on the heap: the JavaScript loops are quick there, and a kernel's memory is a reservation
      if (this.kernel === undefined)
        this.kernel = this.size >= bitKernelFrom ? BitKernel.create((this.size + 31) >>> 5) : null;
      this.sets.push(new Bitset(this.size, this.kernel?.slot() ?? undefined));
    }
    return this.sets[this.used++]!;
  }
}

/** Stores of fewer positions keep their scratch sets on the heap (see ScratchSets.take). */
const BIT_KERNEL_FROM = 1 << 16;
let bitKernelFrom = BIT_KERNEL_FROM;

/**
 * Sets the size from which a store's scratch sets are held by a bit kernel, for the indexes made after
 * (tests run small stores through it); without a size, back to the default.
 */
export function setBitKernelFrom(size = BIT_KERNEL_FROM): void {
  bitKernelFrom = size;
}

/** Every position not in `set`, within its size. */
export function complement(set: Bitset): Bitset {
  const out = new Bitset(set.size);
  for (let i = 0; i < out.words.length; i++) out.words[i] = ~set.words[i]!;
  const tail = set.size & 31;
  if (tail !== 0) out.words[out.words.length - 1]! &= (1 << tail) - 1;
  return out;
}

/** A bit array's `count` members as positions, ascending. */
export function positionsOf(set: Bitset, count: number): Int32Array {
  const out = new Int32Array(count);
  let n = 0;
  set.forEach((p) => {
    out[n++] = p;
  });
  return out;
}

/** Counts of bit arrays that never change once made (a column's values, the text's words, the flags). */
const fixedCounts = new WeakMap<Bitset, number>();

/** How many a bit array that never changes holds, counted once (never pass a scratch set, which does change). */
export function fixedCount(set: Bitset): number {
  let n = fixedCounts.get(set);
  if (n === undefined) fixedCounts.set(set, (n = set.count()));
  return n;
}

/**
 * The `count` members of `set` that are in `inside` and not in `outside` (null: no such test), ascending:
 * one pass over the words, nothing written but the positions.
 */
export function positionsWithin(set: Bitset, count: number, inside: Bitset, outside: Bitset | null): Int32Array {
  const out = new Int32Array(count);
  if (count === 0) return out;
  const m = set.words;
  const a = inside.words;
  const b = outside?.words ?? null;
  let n = 0;
  for (let i = 0; i < m.length; i++) {
    let w = m[i]! & a[i]!;
    if (b) w &= ~b[i]!;
    while (w !== 0) {
      const low = w & -w;
      out[n++] = (i << 5) + (31 - Math.clz32(low));
      w ^= low;
    }
  }
  return out;
}
