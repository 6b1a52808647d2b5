import { Bitset } from './bitset.js';

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
    private readonly offsets: Int32Array,
    private readonly postings: Int32Array,
    private readonly frequent: ReadonlyMap<number, Bitset>,
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
 * Builds a TermPostings from a dictionary in any order and postings grouped by
 * that dictionary's codes (each group's positions ascending; a duplicate is
 * dropped): the terms are sorted here, by code unit, so prefix ranges hold.
 */
export class TermPostingsBuilder {
  private postings = new Int32Array(1 << 16);
  private n = 0;
  private readonly starts: Int32Array;
  private current = -1;

  /** @param dictionary the terms by incoming code (code k = dictionary[k]) */
  constructor(private readonly size: number, private readonly dictionary: readonly string[]) {
    this.starts = new Int32Array(dictionary.length + 1).fill(-1);
  }

  /** The next posting: codes ascending, positions ascending within a code. */
  add(code: number, position: number): void {
    if (code !== this.current) {
      this.current = code;
      this.starts[code] = this.n;
    } else if (this.postings[this.n - 1] === position) return;
    if (this.n === this.postings.length) {
      const grown = new Int32Array(this.postings.length * 2);
      grown.set(this.postings);
      this.postings = grown;
    }
    this.postings[this.n++] = position;
  }

  finish(): TermPostings {
    const incoming = this.dictionary;
    const order = Array.from(incoming.keys()).sort((a, b) => (incoming[a]! < incoming[b]! ? -1 : incoming[a]! > incoming[b]! ? 1 : 0));
    // each incoming code's slice ends where the next code that has postings starts
    const ends = new Int32Array(incoming.length);
    let next = this.n;
    for (let c = incoming.length - 1; c >= 0; c--) {
      if (this.starts[c]! >= 0) {
        ends[c] = next;
        next = this.starts[c]!;
      }
    }
    const offsets = new Int32Array(incoming.length + 1);
    const postings = new Int32Array(this.n);
    const frequent = new Map<number, Bitset>();
    const candidates: Array<[number, number]> = [];
    order.forEach((c, t) => {
      const start = this.starts[c]!;
      const slice = start >= 0 ? this.postings.subarray(start, ends[c]) : new Int32Array(0);
      postings.set(slice, offsets[t]);
      offsets[t + 1] = offsets[t]! + slice.length;
      if (slice.length > this.size / FREQUENT_SHARE) candidates.push([t, slice.length]);
    });
    candidates.sort((a, b) => b[1] - a[1]);
    for (const [t] of candidates.slice(0, MAX_FREQUENT)) frequent.set(t, Bitset.of(this.size, postings.subarray(offsets[t]!, offsets[t + 1]!)));
    return new TermPostings(this.size, order.map((c) => incoming[c]!), offsets, postings, frequent);
  }
}

function positionsOf(set: Bitset, count: number): Int32Array {
  const out = new Int32Array(count);
  let n = 0;
  set.forEach((p) => {
    out[n++] = p;
  });
  return out;
}
