import type { CreatorSearchFilters } from '../creator-search.queries.js';
import { AGE_RANGES } from '../creator-taxonomy.js';
import type { Exclusion, SearchContext } from '../search-context.js';
import { Bitset, fixedCount, popcount } from './bitset.js';
import { type ShareColumn, shareAt, sharesInto } from './share-column.js';
import { ShareKernel } from './share-kernel.js';
import { bitArraysWithin, recent } from './recent.js';
import { runSliced } from './sliced-work.js';
import type { TermPostings } from './term-postings.js';

/** One audience key's shares: positions sorted by share, largest first (a creator listed twice: its largest share only). */
export interface AudienceShares {
  positions: Int32Array;
  /** The shares, in the positions' order (16-bit hundredths where they all are: share-column.ts). */
  pcts: ShareColumn;
}

/** The list columns held as term postings. */
export type TermColumn = 'hashtags' | 'mentions' | 'brands' | 'caption_words' | 'linked_platforms';
/** The yes/no columns: a bit array each way. */
export type FlagName = 'has_sponsored_posts' | 'has_contact';

/** The discovery half of the index: content terms, yes/no flags and audience shares on every dimension. */
export interface DiscoveryData {
  terms: Readonly<Record<TermColumn, TermPostings>>;
  flags: Readonly<Record<FlagName, { yes: Bitset; no: Bitset }>>;
  /** dimension → key → shares (country, gender, language, interest, quality), for the keys not in `dense`. */
  audience: ReadonlyMap<string, ReadonlyMap<string, AudienceShares>>;
  /**
   * dimension → key → share by position (NaN: no share), for the keys held by
   * a large share of the creators (see the loader's DENSE_SHARE): a minimum
   * is one sequential pass, where a low one would turn most of a list into bits.
   */
  dense: ReadonlyMap<string, ReadonlyMap<string, ShareColumn>>;
  /**
   * Age shares by position, one array per range of AGE_RANGES (NaN: no share):
   * a search sums its ranges position by position, in order, reading memory
   * sequentially (a sum over share-ordered lists jumps around it, ~10x slower).
   */
  ages: readonly ShareColumn[];
}

/** A filter as a bit array to intersect (`list` null) or a list of matches that may drive the search. */
export interface DiscoveryFilter {
  size: number;
  set: Bitset;
  list: Int32Array | null;
}

/** How many dropped answers' bit arrays are kept for the next answers (see `DiscoveryFilters.spare`). */
const SPARE_SETS = 4;

/** How many audience answers an index caches, when a test sets it (else about 32 MB of them, see the class). */
let answersKept: number | null = null;

/** Sets how many audience answers the indexes made after cache (tests make them drop and reuse); without a count, the default. */
export function setAudienceAnswersKept(count?: number): void {
  answersKept = count ?? null;
}

/** The share kernels prepared ahead of their index (`prepareShareKernel`), by the data they copy. */
const kernels = new WeakMap<DiscoveryData, ShareKernel | null>();

/** The columns the share kernel copies: the age ranges, then the dense keys. */
function kernelColumns(data: DiscoveryData): ShareColumn[] {
  return [...data.ages, ...[...data.dense.values()].flatMap((keys) => [...keys.values()])];
}

/**
 * Builds the share kernel of `data` in slices of about `sliceMs` beside requests (sliced-work.ts), for the index
 * made of it next: at 1M creators the copy is a few hundred ms at once (docs/search.md, "The switch at 1M").
 */
export async function prepareShareKernel(
  data: DiscoveryData,
  size: number,
  sliceMs: number,
  before?: DiscoveryData,
): Promise<void> {
  if (kernels.has(data)) return;
  // the columns unchanged since the index opened `before` (the same bytes): its kernel's copies, not a copy again
  const shared = before ? kernels.get(before)?.sharing(kernelColumns(data)) : null;
  const kernel = shared ?? (await runSliced(ShareKernel.build(kernelColumns(data), size), sliceMs));
  kernels.set(data, kernel ?? null);
}

/**
 * Turns the content, audience and list filters of a search into bit arrays and
 * position lists over the index's base positions, by the rules of
 * `discoverySql` (creator-search.discovery.ts). Numeric content filters
 * (views, newest post) are range filters of the index itself.
 */
export class DiscoveryFilters {
  private readonly exclusions = new Map<string, DiscoveryFilter>();
  /** Audience answers by (dimension, keys, minimum): a broad share costs a bit write per creator to build. */
  private readonly shares = new Map<string, DiscoveryFilter>();
  private readonly sharesLimit: number;
  /** Per audience key, every creator holding a share of it (see `holdersOf`), as many as `holdersLimit`. */
  private readonly holders = new Map<AudienceShares, Bitset>();
  private readonly holdersLimit: number;
  /**
   * Bit arrays of audience answers the cache dropped, made again into the next ones: a new 1.25 MB array per
   * answer at 10M drove a full collection every twenty-odd discovery searches (5-10 ms pauses in their tail).
   */
  private readonly spare: Bitset[] = [];
  /** Per-position sums of several share columns (one search at a time uses it: searches run synchronously). */
  private sumScratch: Float64Array | null = null;
  /** The share columns by position again, for the SIMD kernel (null when no column's shares are all hundredths). */
  private readonly kernel: ShareKernel | null;

  constructor(
    private readonly data: DiscoveryData,
    private readonly size: number,
    private readonly positionOf: (creatorId: number) => number,
  ) {
    this.kernel = kernels.has(data) ? kernels.get(data)! : ShareKernel.of(kernelColumns(data), size);
    // about 32 MB of bit arrays, at least 16
    this.sharesLimit = answersKept ?? bitArraysWithin(32, size);
    // every key of the dimension with most (40 audience countries) when about 64 MB holds them: a search
    // drawing countries at random then never rebuilds one (a scattered write per holder, 2-4 ms at 10M)
    this.holdersLimit = bitArraysWithin(64, size);
  }

  /** Every filter of `f` this half answers; a filter matching nothing makes the answer 'none'. */
  of(f: CreatorSearchFilters, context: SearchContext, take: () => Bitset, listMax: number): DiscoveryFilter[] | 'none' {
    const { terms, flags } = this.data;
    const out: DiscoveryFilter[] = [];
    const termFilters: Array<[TermColumn, readonly string[] | undefined]> = [
      ['hashtags', f.hashtags],
      ['mentions', f.mentions],
      ['brands', f.brands],
      ['linked_platforms', f.also_on],
    ];
    for (const [column, values] of termFilters) if (values) out.push(terms[column].any(values, take, listMax));
    for (const word of f.keywords ?? []) out.push(terms.caption_words.startingWith(word, listMax));
    for (const [name, value] of [
      ['has_sponsored_posts', f.has_sponsored_posts],
      ['has_contact', f.has_contact],
    ] as const) {
      if (value === undefined) continue;
      const set = value ? flags[name].yes : flags[name].no;
      out.push({ size: fixedCount(set), set, list: null });
    }
    for (const a of audienceFilters(f)) {
      const columns = this.columnsOf(a);
      out.push(
        this.cachedShare(a, () =>
          columns
            ? this.positionalShare(columns, a.minPct)
            : this.kept(this.share(a.dimension, a.keys[0]!, a.minPct, take)),
        ),
      );
    }
    if (f.exclude_list && context.excluded) out.push(this.notExcluded(context.excluded));
    return out.some((x) => x.size === 0) ? 'none' : out;
  }

  /**
   * The search's audience filters held by position (age, dense keys) and not
   * cached, as tests to run on other filters' matches when those are few
   * (the caller decides); `fields` are the filters each one stands for.
   */
  tests(f: CreatorSearchFilters): ShareTest[] {
    const out: ShareTest[] = [];
    for (const a of audienceFilters(f)) {
      const columns = this.columnsOf(a);
      if (!columns || this.shares.has(cacheKey(a))) continue;
      out.push({ fields: a.fields, columns, min: a.minPct ?? 0, strict: a.minPct === undefined });
    }
    return out;
  }

  /** The share columns by position of an audience filter (the listed age ranges, or a dense key), or null for a listed key. */
  private columnsOf(a: AudienceFilter): ShareColumn[] | null {
    if (a.dimension === 'age') {
      return a.keys
        .map((r) => this.data.ages[AGE_RANGES.indexOf(r as (typeof AGE_RANGES)[number])])
        .filter((c) => c !== undefined);
    }
    const column = this.data.dense.get(a.dimension)?.get(a.keys[0]!);
    return column ? [column] : null;
  }

  /** An audience filter from the cache, or built with bit arrays of its own (it outlives the search) and cached. */
  private cachedShare(a: AudienceFilter, build: () => DiscoveryFilter): DiscoveryFilter {
    return recent(this.shares, cacheKey(a), this.sharesLimit, build, (dropped) => {
      // each cached answer's bit array is its own (see `share` and `positionalShare`)
      if (this.spare.length < SPARE_SETS && dropped.set.size === this.size) this.spare.push(dropped.set);
    });
  }

  /** A bit array of the store's size for a cached answer: one the cache dropped, or a new one. */
  private spareSet(): Bitset {
    return this.spare.pop() ?? new Bitset(this.size);
  }

  /** The creators with a share of `key` at least `minPct` (without it: above 0): a prefix of the key's list. */
  share(dimension: string, key: string, minPct: number | undefined, take: () => Bitset): DiscoveryFilter {
    const shares = this.data.audience.get(dimension)?.get(key);
    if (!shares) return { size: 0, set: new Bitset(this.size), list: new Int32Array(0) };
    // largest share first (no share last): those passing are a prefix, found by binary search
    let n = 0;
    for (let hi = shares.pcts.length; n < hi; ) {
      const mid = (n + hi) >>> 1;
      if (passesShare(shareAt(shares.pcts, mid), minPct)) n = mid + 1;
      else hi = mid;
    }
    const list = shares.positions.subarray(0, n);
    // most of the key's creators pass (a low minimum): all of them, less those below the minimum
    if (n > shares.positions.length / 2) {
      const set = this.holdersOf(shares, take).copy(take());
      set.removeAll(shares.positions.subarray(n));
      return { size: n, set, list };
    }
    return { size: n, set: Bitset.of(this.size, list, take()), list };
  }

  /**
   * Every creator holding a share of the key, as a bit array kept for the next search (a few dozen keys at
   * most): a low minimum then costs a copy and the few below it, not a scattered write per creator passing.
   */
  private holdersOf(shares: AudienceShares, take: () => Bitset): Bitset {
    // written where `take`'s sets are (a bit kernel's memory past 65,536 creators), then kept as a copy
    return recent(this.holders, shares, this.holdersLimit, () =>
      Bitset.of(this.size, shares.positions, take()).clone(),
    );
  }

  /**
   * An answer made in a search's scratch set (see `share`), its bit array copied into one the cache owns:
   * the scattered writes run where `take`'s sets are (a bit kernel past 65,536 creators), the copy is one pass.
   */
  private kept(answer: DiscoveryFilter): DiscoveryFilter {
    return { ...answer, set: answer.set.copy(this.spareSet()) };
  }

  /**
   * The creators whose shares in `columns`, summed per position, pass `minPct`:
   * sequential passes writing a word of bits at a time (no list of positions:
   * a broad share would make one as long as the store). Several columns (age
   * ranges) are summed column by column into a scratch array first — tight
   * loops over typed arrays rather than a call per position
   * — in the columns' order, so each sum is the same double as `passesSum`'s.
   * The kernel answers first when it can (see ShareKernel), about ten times faster.
   */
  private positionalShare(columns: readonly ShareColumn[], minPct: number | undefined): DiscoveryFilter {
    const set = this.spareSet();
    const passed = this.kernel?.passing(columns, minPct, set);
    if (passed !== undefined && passed !== null) return { size: passed, set, list: null };
    const min = minPct ?? 0;
    const strict = minPct === undefined;
    const first = columns[0]!;
    const values = columns.length === 1 && first instanceof Float64Array ? first : this.sumColumns(columns);
    const words = set.words;
    let n = 0;
    for (let w = 0; w < words.length; w++) {
      const from = w << 5;
      const bits = passingWord(values, from, Math.min(32, this.size - from), min, strict);
      words[w] = bits;
      n += popcount(bits);
    }
    return { size: n, set, list: null };
  }

  /** The columns summed per position into the scratch array (NaN where none holds a share), in order, as doubles. */
  private sumColumns(columns: readonly ShareColumn[]): Float64Array {
    const sum = sharesInto(columns[0]!, (this.sumScratch ??= new Float64Array(this.size)));
    for (let k = 1; k < columns.length; k++) {
      const column = columns[k]!;
      for (let p = 0; p < sum.length; p++) {
        const v = shareAt(column, p);
        // NaN (no share) adds nothing; a first share replaces the NaN
        if (v === v) sum[p] = sum[p]! === sum[p]! ? sum[p]! + v : v;
      }
    }
    return sum;
  }

  /** Every base position but the excluded creators': one bit array per lists' version (a few kept). */
  private notExcluded(excluded: Exclusion): DiscoveryFilter {
    const hit = this.exclusions.get(excluded.key);
    if (hit) return hit;
    const out = new Bitset(this.size);
    out.words.fill(0xffffffff);
    const tail = this.size & 31;
    if (tail !== 0) out.words[out.words.length - 1] = (1 << tail) - 1;
    let n = this.size;
    for (const id of excluded.creatorIds) {
      const p = this.positionOf(id);
      if (p >= 0 && out.has(p)) {
        out.remove(p);
        n--;
      }
    }
    const filter = { size: n, set: out, list: null };
    this.exclusions.set(excluded.key, filter);
    if (this.exclusions.size > 8) this.exclusions.delete(this.exclusions.keys().next().value!);
    return filter;
  }
}

/** An audience filter of a search: one key (or the listed age ranges) of a dimension, its minimum and the filters it stands for. */
interface AudienceFilter {
  dimension: string;
  keys: readonly string[];
  minPct: number | undefined;
  fields: ReadonlyArray<keyof CreatorSearchFilters>;
}

/** Shares by position summed per position (one column: the share itself), against a minimum (`strict`: above 0). */
export interface ShareTest {
  fields: ReadonlyArray<keyof CreatorSearchFilters>;
  columns: readonly ShareColumn[];
  min: number;
  strict: boolean;
}

/** The audience filters of `f` besides audience_country (which the index plans itself). */
function audienceFilters(f: CreatorSearchFilters): AudienceFilter[] {
  const out: AudienceFilter[] = [];
  if (f.audience_gender)
    out.push({
      dimension: 'gender',
      keys: [f.audience_gender],
      minPct: f.audience_gender_min_pct,
      fields: ['audience_gender', 'audience_gender_min_pct'],
    });
  if (f.audience_language) {
    out.push({
      dimension: 'language',
      keys: [f.audience_language],
      minPct: f.audience_language_min_pct,
      fields: ['audience_language', 'audience_language_min_pct'],
    });
  }
  if (f.audience_interest) {
    out.push({
      dimension: 'interest',
      keys: [f.audience_interest],
      minPct: f.audience_interest_min_pct,
      fields: ['audience_interest', 'audience_interest_min_pct'],
    });
  }
  if (f.audience_real_min_pct !== undefined)
    out.push({
      dimension: 'quality',
      keys: ['real'],
      minPct: f.audience_real_min_pct,
      fields: ['audience_real_min_pct'],
    });
  if (f.audience_age)
    out.push({
      dimension: 'age',
      keys: f.audience_age,
      minPct: f.audience_age_min_pct,
      fields: ['audience_age', 'audience_age_min_pct'],
    });
  return out;
}

function cacheKey(a: AudienceFilter): string {
  return JSON.stringify([a.dimension, a.keys, a.minPct ?? null]);
}

/**
 * Whether the shares of the test's columns at `p`, summed in the columns' order
 * (the SQL's term order, so the same double; NaN: not held), pass its minimum.
 */
export function passesSum(t: Omit<ShareTest, 'fields'>, p: number): boolean {
  let sum = 0;
  let held = false;
  for (let k = 0; k < t.columns.length; k++) {
    const v = shareAt(t.columns[k]!, p);
    if (v !== v) continue;
    sum = held ? sum + v : v;
    held = true;
  }
  return held && (t.strict ? sum > 0 : sum >= t.min);
}

/** The bits of positions `from..from+end` whose share passes (NaN fails both comparisons, as a missing share does). */
function passingWord(column: Float64Array, from: number, end: number, min: number, strict: boolean): number {
  let bits = 0;
  if (strict) for (let b = 0; b < end; b++) bits |= (column[from + b]! > 0 ? 1 : 0) << b;
  else for (let b = 0; b < end; b++) bits |= (column[from + b]! >= min ? 1 : 0) << b;
  return bits;
}

/** A share passes `minPct` (without one: any share above 0). */
export function passesShare(pct: number, minPct: number | undefined): boolean {
  return minPct === undefined ? pct > 0 : pct >= minPct;
}
