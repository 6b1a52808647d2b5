import { Bitset, positionsOf } from './bitset.js';
import { bitArraysWithin } from './recent.js';
import { addGaps, gapDecoded } from './text-index.js';

/** A term held by more than 1/FREQUENT_SHARE of the creators keeps a bit array (its list would be slower to turn into one). */
const FREQUENT_SHARE = 32;
/** At most this many bit arrays per column: the long tail stays as position lists (4 bytes per holder). */
const MAX_FREQUENT = 64;
/**
 * A run of terms sharing a prefix keeps its union as a bit array when making it from what is kept already
 * would still read at least size/RUN_SHARE postings (at 10M creators 625,000, about 3 ms), or more when
 * that would keep more than MAX_RUNS.
 */
const RUN_SHARE = 16;
/** At most this many run unions per column (each size/8 bytes of file, read only when a prefix asks for it). */
const MAX_RUNS = 128;
/** Prefixes longer than this are not considered for runs (their runs are a term or two). */
const MAX_RUN_PREFIX = 24;

/**
 * Stored unions of runs of terms, each the terms sharing a prefix: run r is the creators holding any of
 * `terms[from[r]..to[r])`, `counts[r]` of them. Ordered by `from` ascending, then `to` descending, so the
 * longest run starting at a term comes first.
 */
export interface TermRuns {
  from: Int32Array;
  to: Int32Array;
  counts: Int32Array;
  sets: Bitset[];
}

/** A run chosen and not made yet (`chooseRuns` needs only where it ends). */
const PLANNED = new Bitset(0);

const NO_RUNS: TermRuns = { from: new Int32Array(0), to: new Int32Array(0), counts: new Int32Array(0), sets: [] };

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
 * term the ascending positions of the creators holding it, delta-coded: each
 * position as its gap from the previous one (the first from 0) in a variable
 * number of bytes, 7 bits a byte (a gap under 128 is one byte, under 16,384
 * two): about half the 4 bytes a plain position costs on the bench's data
 * (docs/search.md, "Where the memory goes"). The frequent terms (a few) also
 * keep a bit array, and so do the broad runs of terms sharing a prefix (`TermRuns`): a prefix query
 * ORs the runs it contains and decodes only the terms no run covers (docs/search.md, "Keyword prefixes").
 */
export class TermPostings {
  private readonly cache = new Map<string, TermMatch>();
  private readonly cacheLimit: number;

  /**
   * @param terms distinct, sorted by code unit
   * @param offsets `offsets[t]..offsets[t+1]` is term t's slice of `postings` (bytes)
   * @param postings the gaps, 7 bits a byte, the high bit set on all but a gap's last byte
   * @param counts how many creators hold term t
   */
  constructor(
    readonly size: number,
    readonly terms: readonly string[],
    readonly offsets: Uint32Array,
    readonly postings: Uint8Array,
    readonly counts: Int32Array,
    readonly frequent: ReadonlyMap<number, Bitset>,
    readonly runs: TermRuns = NO_RUNS,
  ) {
    // prefix answers are cached, like the text index's words: about 128 MB of bit arrays, at least 16 (a
    // short prefix can union thousands of terms: at 10M creators a miss costs what a few hundred searches do)
    this.cacheLimit = bitArraysWithin(128, size);
  }

  /**
   * The postings of plain positions: `offsets[t]..offsets[t+1]` is term t's
   * slice of `positions` (ascending within a term), coded as the builder codes them.
   */
  static of(
    size: number,
    terms: readonly string[],
    offsets: Int32Array,
    positions: Int32Array,
    frequent: ReadonlyMap<number, Bitset>,
  ): TermPostings {
    const builder = new TermPostingsBuilder(size, terms, positions.length);
    for (let t = 0; t < terms.length; t++)
      for (let i = offsets[t]!; i < offsets[t + 1]!; i++) builder.add(t, positions[i]!);
    return builder.finish({ frequent });
  }

  /** Bytes held (for the docs' memory figures). */
  get bytes(): number {
    let n = this.offsets.byteLength + this.postings.byteLength + this.counts.byteLength;
    for (const set of this.frequent.values()) n += set.words.byteLength;
    for (const set of this.runs.sets) n += set.words.byteLength;
    for (const t of this.terms) n += 16 + t.length * 2;
    return n;
  }

  /** The creators holding any of `terms` (exact terms). */
  any(terms: readonly string[], into: () => Bitset, listMax: number): TermMatch {
    const codes = [...new Set(terms.map((t) => this.find(t)).filter((c) => c >= 0))];
    return this.union(codes, into, listMax);
  }

  /**
   * The creators holding a term that starts with `prefix`, cached by the terms it selects (a short prefix spans
   * many terms, and prefixes selecting the same terms, as `budg` and `budget` may, share one answer).
   */
  startingWith(prefix: string, listMax: number): TermMatch {
    const from = this.lowerBound(prefix);
    // the terms starting with the prefix are one range: the first past it by binary search
    let lo = from;
    let to = this.terms.length;
    while (lo < to) {
      const mid = (lo + to) >>> 1;
      if (this.terms[mid]!.startsWith(prefix)) lo = mid + 1;
      else to = mid;
    }
    const key = `${from}:${to}`;
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      // the list depends on the caller's bound: made when first wanted, never handed out past the bound
      if (hit.size > listMax) return { ...hit, list: null };
      hit.list ??= positionsOf(hit.set, hit.size);
      return hit;
    }
    const { sets, codes, size } = cover(from, to, this.counts, this.frequent, (t, end) => this.longestRun(t, end));
    // a prefix whose terms are one stored run answers from its bit array, as it is
    if (sets.length === 1 && codes.length === 0 && size > listMax) return { size, set: sets[0]!, list: null };
    // otherwise the answer outlives the search: its own bit array, not a scratch one
    const match = this.unionOf(sets, codes, () => new Bitset(this.size), listMax);
    this.cache.set(key, match);
    if (this.cache.size > this.cacheLimit) this.cache.delete(this.cache.keys().next().value!);
    return match;
  }

  /** The ascending positions of the creators holding term `code` (decoded: a new array each call). */
  holders(code: number): Int32Array {
    return gapDecoded(this.postings, this.offsets[code]!, this.offsets[code + 1]!, new Int32Array(this.counts[code]!));
  }

  /** How many creators hold term `code`. */
  count(code: number): number {
    return this.counts[code]!;
  }

  /** A term's code, or -1. */
  find(term: string): number {
    const i = this.lowerBound(term);
    return i < this.terms.length && this.terms[i] === term ? i : -1;
  }

  /** The stored bit arrays and the remaining terms' postings, ORed into one new bit array. */
  private unionOf(sets: readonly Bitset[], codes: readonly number[], into: () => Bitset, listMax: number): TermMatch {
    if (sets.length === 0) return this.union(codes, into, listMax);
    const set = sets[0]!.copy(into());
    for (let i = 1; i < sets.length; i++) set.orInPlace(sets[i]!);
    for (const c of codes) addGaps(this.postings, this.offsets[c]!, this.offsets[c + 1]!, set);
    const size = set.count();
    return { size, set, list: size <= listMax ? positionsOf(set, size) : null };
  }

  private union(codes: readonly number[], into: () => Bitset, listMax: number): TermMatch {
    if (codes.length === 0) return { size: 0, set: new Bitset(this.size), list: new Int32Array(0) };
    if (codes.length === 1) {
      const c = codes[0]!;
      const bits = this.frequent.get(c);
      const size = this.counts[c]!;
      // too many to drive a search: no list decoded (a frequent term's holders are millions at 10M creators)
      if (size > listMax) {
        if (bits) return { size, set: bits, list: null };
        const set = Bitset.of(this.size, [], into());
        addGaps(this.postings, this.offsets[c]!, this.offsets[c + 1]!, set);
        return { size, set, list: null };
      }
      const list = this.holders(c);
      return { size, set: bits ?? Bitset.of(this.size, list, into()), list };
    }
    const set = Bitset.of(this.size, [], into());
    for (const c of codes) {
      const bits = this.frequent.get(c);
      if (bits) set.orInPlace(bits);
      else addGaps(this.postings, this.offsets[c]!, this.offsets[c + 1]!, set);
    }
    const size = set.count();
    return { size, set, list: size <= listMax ? positionsOf(set, size) : null };
  }

  /** The longest stored run starting at term `t` and ending by `end`, or null. */
  private longestRun(t: number, end: number): Run | null {
    const { from, to, counts, sets } = this.runs;
    let lo = 0;
    let hi = from.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (from[mid]! < t) lo = mid + 1;
      else hi = mid;
    }
    for (let r = lo; r < from.length && from[r] === t; r++)
      if (to[r]! <= end) return { to: to[r]!, set: sets[r]!, count: counts[r]! };
    return null;
  }

  /**
   * These postings with run unions (`TermRuns`), chosen from the longest prefixes to the shortest: a run is kept
   * when making it from the runs kept so far and the frequent terms' arrays would still read at least a threshold
   * of postings (an OR of a kept array counted as size/128 of them). A prefix's run that its longer prefixes'
   * runs make cheaply is not kept again: `budg` and `budget` selecting the same terms keep one array, and a
   * one-letter prefix ORs its words' runs. The threshold is size/RUN_SHARE postings, doubled until at most
   * MAX_RUNS runs qualify: every prefix then reads at most about that many, whatever its place in the alphabet.
   */
  withRuns(): TermPostings {
    let threshold = this.size / RUN_SHARE;
    let spans = this.chooseRuns(threshold);
    while (spans.length > MAX_RUNS) spans = this.chooseRuns((threshold *= 2));
    // made in the order chosen, so each run is made from the runs below it
    const kept = new Map<number, Run[]>();
    const longest = (t: number, end: number): Run | null => kept.get(t)?.find((r) => r.to <= end) ?? null;
    const all: Array<Run & { from: number }> = [];
    for (const [from, to] of spans) {
      const parts = cover(from, to, this.counts, this.frequent, longest);
      const { set, size } = this.unionOf(parts.sets, parts.codes, () => new Bitset(this.size), 0);
      const run = { to, set, count: size };
      kept.set(
        from,
        [...(kept.get(from) ?? []), run].sort((a, b) => b.to - a.to),
      );
      all.push({ from, ...run });
    }
    all.sort((a, b) => a.from - b.from || b.to - a.to);
    const runs: TermRuns = {
      from: Int32Array.from(all, (r) => r.from),
      to: Int32Array.from(all, (r) => r.to),
      counts: Int32Array.from(all, (r) => r.count),
      sets: all.map((r) => r.set),
    };
    return new TermPostings(this.size, this.terms, this.offsets, this.postings, this.counts, this.frequent, runs);
  }

  /** The runs `withRuns` keeps at `threshold`, as [from, to) in the order chosen; it stops past MAX_RUNS. */
  private chooseRuns(threshold: number): Array<[number, number]> {
    const orCost = this.size / 128;
    const n = this.terms.length;
    // running sums of the terms' counts: a run holding fewer postings than the threshold is passed over unread
    const before = new Float64Array(n + 1);
    for (let t = 0; t < n; t++) before[t + 1] = before[t]! + this.counts[t]!;
    // what cover needs of a chosen run: its end (its array is made later, from the runs chosen before it)
    const chosen = new Map<number, Run[]>();
    const longest = (t: number, end: number): Run | null => chosen.get(t)?.find((r) => r.to <= end) ?? null;
    const spans: Array<[number, number]> = [];
    let longestTerm = 0;
    for (const term of this.terms) longestTerm = Math.max(longestTerm, term.length);
    for (let length = Math.min(longestTerm, MAX_RUN_PREFIX); length >= 1 && spans.length <= MAX_RUNS; length--) {
      for (let f = 0; f < n && spans.length <= MAX_RUNS; ) {
        const first = this.terms[f]!;
        if (first.length < length) {
          f++;
          continue;
        }
        const prefix = first.slice(0, length);
        let to = f + 1;
        while (to < n && this.terms[to]!.startsWith(prefix)) to++;
        if (before[to]! - before[f]! >= threshold) {
          const parts = cover(f, to, this.counts, this.frequent, longest);
          if (parts.postings + parts.sets.length * orCost >= threshold && parts.size < 0) {
            chosen.set(
              f,
              [...(chosen.get(f) ?? []), { to, set: PLANNED, count: 0 }].sort((a, b) => b.to - a.to),
            );
            spans.push([f, to]);
          }
        }
        f = to;
      }
    }
    return spans;
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

/** A stored union of terms, from a term to `to` (exclusive). */
interface Run {
  to: number;
  set: Bitset;
  count: number;
}

/**
 * How the union of `terms[from..to)` is made: the stored bit arrays covering parts of it (at each term, the
 * longest run that fits, else a frequent term's array) and the codes of the terms left, whose postings are
 * decoded (`postings` of them). `size` is the creators held when one stored array is the whole union, else -1.
 */
function cover(
  from: number,
  to: number,
  counts: Int32Array,
  frequent: ReadonlyMap<number, Bitset>,
  longest: (t: number, end: number) => Run | null,
): { sets: Bitset[]; codes: number[]; size: number; postings: number } {
  const sets: Bitset[] = [];
  const codes: number[] = [];
  let only = -1;
  let postings = 0;
  for (let t = from; t < to; ) {
    const run = longest(t, to);
    if (run) {
      sets.push(run.set);
      only = run.count;
      t = run.to;
      continue;
    }
    const bits = frequent.get(t);
    if (bits) {
      sets.push(bits);
      only = counts[t]!;
    } else {
      codes.push(t);
      postings += counts[t]!;
    }
    t++;
  }
  return { sets, codes, size: sets.length === 1 && codes.length === 0 ? only : -1, postings };
}

/**
 * Builds a TermPostings from postings that arrive grouped by term code, codes
 * ascending, positions ascending within a code (a repeated position is dropped):
 * `terms` are already sorted by code unit; each position is coded as it comes
 * (`total`, the number of postings, sizes the first buffer at two bytes each).
 */
export class TermPostingsBuilder {
  private postings: Uint8Array;
  private readonly offsets: Uint32Array;
  private readonly counts: Int32Array;
  private n = 0;
  private current = -1;
  private last = -1;

  constructor(
    private readonly size: number,
    private readonly terms: readonly string[],
    total: number,
  ) {
    this.postings = new Uint8Array(Math.max(64, total * 2));
    this.offsets = new Uint32Array(terms.length + 1);
    this.counts = new Int32Array(terms.length);
  }

  /** The next posting. */
  add(code: number, position: number): void {
    if (code !== this.current) {
      for (let c = this.current + 1; c <= code; c++) this.offsets[c] = this.n;
      this.current = code;
      this.last = 0;
    } else if (this.last === position) return;
    if (this.n + 5 > this.postings.length) {
      const grown = new Uint8Array(Math.ceil(this.postings.length * 1.5) + 5);
      grown.set(this.postings);
      this.postings = grown;
    }
    let gap = position - this.last;
    this.last = position;
    this.counts[code]!++;
    while (gap >= 128) {
      this.postings[this.n++] = (gap & 127) | 128;
      gap >>>= 7;
    }
    this.postings[this.n++] = gap;
  }

  /**
   * The postings; the frequent terms' bit arrays are `frequent`, or made here (the most held, past
   * 1/FREQUENT_SHARE); with `runs`, the broad prefixes' unions too (a column searched by prefix).
   */
  finish({ frequent, runs = false }: { frequent?: ReadonlyMap<number, Bitset>; runs?: boolean } = {}): TermPostings {
    for (let c = this.current + 1; c <= this.terms.length; c++) this.offsets[c] = this.n;
    const postings = this.n === this.postings.length ? this.postings : this.postings.slice(0, this.n);
    this.postings = new Uint8Array(0);
    const partial = new TermPostings(this.size, this.terms, this.offsets, postings, this.counts, new Map());
    if (frequent) {
      const given = new TermPostings(this.size, this.terms, this.offsets, postings, this.counts, frequent);
      return runs ? given.withRuns() : given;
    }
    const made = new Map<number, Bitset>();
    const candidates: Array<[number, number]> = [];
    for (let t = 0; t < this.terms.length; t++) {
      const length = this.counts[t]!;
      if (length > this.size / FREQUENT_SHARE) candidates.push([t, length]);
    }
    candidates.sort((a, b) => b[1] - a[1]);
    for (const [t] of candidates.slice(0, MAX_FREQUENT)) made.set(t, Bitset.of(this.size, partial.holders(t)));
    const done = new TermPostings(this.size, this.terms, this.offsets, postings, this.counts, made);
    return runs ? done.withRuns() : done;
  }
}

/** Terms sorted by UTF-16 code unit (what `startsWith` and `<` compare), not by the database's collation. */
export function sortTerms(terms: readonly string[]): string[] {
  return [...terms].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
