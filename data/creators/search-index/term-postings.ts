import { Bitset, positionsOf } from './bitset.js';

/** A term held by more than 1/FREQUENT_SHARE of the creators keeps a bit array (its list would be slower to turn into one). */
const FREQUENT_SHARE = 32;
/** At most this many bit arrays per column: the long tail stays as position lists (4 bytes per holder). */
const MAX_FREQUENT = 64;

/** The creators a set of terms matches: a bit array, and their positions when few enough to drive a search. */
export interface TermMatch {
  size: number;
  set: Bitset;
  /** Ascending positions; null when the matches are many (the set is then the way to test them). */
  list: Int32Array | null;
}

/**
 * A list column of the creators (hashtags, mentions, brands, caption words,
 * linked platforms) as an inverted index: the distinct terms, sorted (UTF-16
 * code unit order, so the terms starting with a prefix are one range), and per
 * term the ascending positions of the creators holding it. The frequent terms
 * (a few) also keep a bit array; the long tail costs 4 bytes per holder.
 */
export class TermPostings {
  private readonly cache = new Map<string, TermMatch>();
  private readonly cacheLimit: number;

  /**
   * @param terms distinct, sorted by code unit
   * @param offsets `offsets[t]..offsets[t+1]` is term t's slice of `postings`
   */
  constructor(
    readonly size: number,
    readonly terms: readonly string[],
    readonly offsets: Int32Array,
    readonly postings: Int32Array,
    readonly frequent: ReadonlyMap<number, Bitset>,
  ) {
    // prefix answers are cached, like the text index's words: about 32 MB of bit arrays, at least 16
    this.cacheLimit = Math.max(16, Math.floor((32 * 1024 * 1024) / Math.max(1, size / 8)));
  }

  /** Bytes held (for the docs' memory figures). */
  get bytes(): number {
    let n = this.offsets.byteLength + this.postings.byteLength;
    for (const set of this.frequent.values()) n += set.words.byteLength;
    for (const t of this.terms) n += 16 + t.length * 2;
    return n;
  }

  /** The creators holding any of `terms` (exact terms). */
  any(terms: readonly string[], into: () => Bitset, listMax: number): TermMatch {
    const codes = [...new Set(terms.map((t) => this.find(t)).filter((c) => c >= 0))];
    return this.union(codes, into, listMax);
  }

  /** The creators holding a term that starts with `prefix` (cached: a short prefix spans many terms). */
  startingWith(prefix: string, listMax: number): TermMatch {
    const hit = this.cache.get(prefix);
    if (hit) {
      this.cache.delete(prefix);
      this.cache.set(prefix, hit);
      // the list depends on the caller's bound: made when first wanted, never handed out past the bound
      if (hit.size > listMax) return { ...hit, list: null };
      hit.list ??= positionsOf(hit.set, hit.size);
      return hit;
    }
    const from = this.lowerBound(prefix);
    let to = from;
    while (to < this.terms.length && this.terms[to]!.startsWith(prefix)) to++;
    const codes = Array.from({ length: to - from }, (_, i) => from + i);
    // the answer outlives the search: its own bit array, not a scratch one
    const match = this.union(codes, () => new Bitset(this.size), listMax);
    this.cache.set(prefix, match);
    if (this.cache.size > this.cacheLimit) this.cache.delete(this.cache.keys().next().value!);
    return match;
  }

  /** The ascending positions of the creators holding term `code` (a view, not a copy). */
  holders(code: number): Int32Array {
    return this.postings.subarray(this.offsets[code]!, this.offsets[code + 1]!);
  }

  /** A term's code, or -1. */
  find(term: string): number {
    const i = this.lowerBound(term);
    return i < this.terms.length && this.terms[i] === term ? i : -1;
  }

  private union(codes: readonly number[], into: () => Bitset, listMax: number): TermMatch {
    if (codes.length === 0) return { size: 0, set: new Bitset(this.size), list: new Int32Array(0) };
    if (codes.length === 1) {
      const c = codes[0]!;
      const list = this.postings.subarray(this.offsets[c]!, this.offsets[c + 1]!);
      const set = this.frequent.get(c) ?? Bitset.of(this.size, list, into());
      return { size: list.length, set, list };
    }
    const set = Bitset.of(this.size, [], into());
    for (const c of codes) {
      const bits = this.frequent.get(c);
      if (bits) set.orInPlace(bits);
      else for (let i = this.offsets[c]!; i < this.offsets[c + 1]!; i++) set.add(this.postings[i]!);
    }
    const size = set.count();
    return { size, set, list: size <= listMax ? positionsOf(set, size) : null };
  }

  /** The first term index whose term is ≥ `s` (code unit order). */
  private lowerBound(s: string): number {
    let lo = 0;
    let hi = this.terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.terms[mid]! < s) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * Builds a TermPostings from postings that arrive grouped by term code, codes
 * ascending, positions ascending within a code (a repeated position is dropped):
 * `terms` are already sorted by code unit and `total` bounds the postings, so
 * they are written once into an array of their size.
 */
export class TermPostingsBuilder {
  private readonly postings: Int32Array;
  private readonly offsets: Int32Array;
  private n = 0;
  private current = -1;

  constructor(
    private readonly size: number,
    private readonly terms: readonly string[],
    total: number,
  ) {
    this.postings = new Int32Array(total);
    this.offsets = new Int32Array(terms.length + 1);
  }

  /** The next posting. */
  add(code: number, position: number): void {
    if (code !== this.current) {
      for (let c = this.current + 1; c <= code; c++) this.offsets[c] = this.n;
      this.current = code;
    } else if (this.postings[this.n - 1] === position) return;
    this.postings[this.n++] = position;
  }

  finish(): TermPostings {
    for (let c = this.current + 1; c <= this.terms.length; c++) this.offsets[c] = this.n;
    const postings = this.n === this.postings.length ? this.postings : this.postings.slice(0, this.n);
    const offsets = this.offsets;
    const frequent = new Map<number, Bitset>();
    const candidates: Array<[number, number]> = [];
    for (let t = 0; t < this.terms.length; t++) {
      const length = offsets[t + 1]! - offsets[t]!;
      if (length > this.size / FREQUENT_SHARE) candidates.push([t, length]);
    }
    candidates.sort((a, b) => b[1] - a[1]);
    for (const [t] of candidates.slice(0, MAX_FREQUENT))
      frequent.set(t, Bitset.of(this.size, postings.subarray(offsets[t]!, offsets[t + 1]!)));
    return new TermPostings(this.size, this.terms, offsets, postings, frequent);
  }
}

/** Terms sorted by UTF-16 code unit (what `startsWith` and `<` compare), not by the database's collation. */
export function sortTerms(terms: readonly string[]): string[] {
  return [...terms].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
