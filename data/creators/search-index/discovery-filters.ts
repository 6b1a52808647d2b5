import type { CreatorSearchFilters } from '../creator-search.queries.js';
import { AGE_RANGES } from '../creator-taxonomy.js';
import type { Exclusion, SearchContext } from '../search-context.js';
import { Bitset } from './bitset.js';
import type { TermPostings } from './term-postings.js';

/** One audience key's shares: positions sorted by share, largest first (a creator listed twice: its largest share only). */
export interface AudienceShares {
  positions: Int32Array;
  pcts: Float64Array;
}

/** The list columns held as term postings. */
export type TermColumn = 'hashtags' | 'mentions' | 'brands' | 'caption_words' | 'linked_platforms';
/** The yes/no columns: a bit array each way. */
export type FlagName = 'has_sponsored_posts' | 'has_contact';

/** The discovery half of the index: content terms, yes/no flags and audience shares on every dimension. */
export interface DiscoveryData {
  terms: Readonly<Record<TermColumn, TermPostings>>;
  flags: Readonly<Record<FlagName, { yes: Bitset; no: Bitset }>>;
  /** dimension → key → shares (country, gender, language, interest, quality). */
  audience: ReadonlyMap<string, ReadonlyMap<string, AudienceShares>>;
  /**
   * Age shares by position, one array per range of AGE_RANGES (NaN: no share):
   * a search sums its ranges position by position, in order, reading memory
   * sequentially (a sum over share-ordered lists jumps around it, ~10x slower).
   */
  ages: readonly Float64Array[];
}

/** A filter as a bit array to intersect (`list` null) or a list of matches that may drive the search. */
export interface DiscoveryFilter {
  size: number;
  set: Bitset;
  list: Int32Array | null;
}

/**
 * Turns the content, audience and list filters of a search into bit arrays and
 * position lists over the index's base positions, by the rules of
 * `discoverySql` (creator-search.discovery.ts). Numeric content filters
 * (views, newest post) are range filters of the index itself.
 */
export class DiscoveryFilters {
  private readonly exclusions = new Map<string, DiscoveryFilter>();
  /** The flags' sizes, counted once (the sets never change). */
  private readonly counts = new Map<Bitset, number>();
  /** Audience answers by (dimension, keys, minimum): a broad share costs a bit write per creator to build. */
  private readonly shares = new Map<string, DiscoveryFilter>();
  private readonly sharesLimit: number;

  constructor(
    private readonly data: DiscoveryData,
    private readonly size: number,
    private readonly positionOf: (creatorId: number) => number,
  ) {
    // about 32 MB of bit arrays, at least 16
    this.sharesLimit = Math.max(16, Math.floor((32 * 1024 * 1024) / Math.max(1, size / 8)));
  }

  /** Every filter of `f` this half answers; a filter matching nothing makes the answer 'none'. */
  of(f: CreatorSearchFilters, context: SearchContext, take: () => Bitset, listMax: number): DiscoveryFilter[] | 'none' {
    const { terms, flags } = this.data;
    const out: DiscoveryFilter[] = [];
    const termFilters: Array<[TermColumn, readonly string[] | undefined]> = [
      ['hashtags', f.hashtags], ['mentions', f.mentions], ['brands', f.brands], ['linked_platforms', f.also_on],
    ];
    for (const [column, values] of termFilters) if (values) out.push(terms[column].any(values, take, listMax));
    for (const word of f.keywords ?? []) out.push(terms.caption_words.startingWith(word, listMax));
    for (const [name, value] of [['has_sponsored_posts', f.has_sponsored_posts], ['has_contact', f.has_contact]] as const) {
      if (value === undefined) continue;
      const set = value ? flags[name].yes : flags[name].no;
      let size = this.counts.get(set);
      if (size === undefined) this.counts.set(set, (size = set.count()));
      out.push({ size, set, list: null });
    }
    const own = (): Bitset => new Bitset(this.size);
    if (f.audience_gender) out.push(this.cachedShare('gender', [f.audience_gender], f.audience_gender_min_pct));
    if (f.audience_language) out.push(this.cachedShare('language', [f.audience_language], f.audience_language_min_pct));
    if (f.audience_interest) out.push(this.cachedShare('interest', [f.audience_interest], f.audience_interest_min_pct));
    if (f.audience_real_min_pct !== undefined) out.push(this.cachedShare('quality', ['real'], f.audience_real_min_pct));
    if (f.audience_age) out.push(this.cachedShare('age', f.audience_age, f.audience_age_min_pct, () => this.ageShare(f.audience_age!, f.audience_age_min_pct, own())));
    if (f.exclude_list && context.excluded) out.push(this.notExcluded(context.excluded));
    return out.some((x) => x.size === 0) ? 'none' : out;
  }

  /**
   * `audience_age` as a test on other filters' matches (its columns and minimum), or null when it
   * should be answered whole: alone in the search, or already in the cache.
   */
  ageTest(ranges: readonly string[], minPct: number | undefined, withOthers: boolean): { columns: Float64Array[]; min: number; strict: boolean } | null {
    if (!withOthers || this.shares.has(JSON.stringify(['age', ranges, minPct ?? null]))) return null;
    const columns = ranges.map((r) => this.data.ages[AGE_RANGES.indexOf(r as (typeof AGE_RANGES)[number])]).filter((c) => c !== undefined);
    return { columns, min: minPct ?? 0, strict: minPct === undefined };
  }

  /** An audience filter from the cache, or built with bit arrays of its own (it outlives the search) and cached. */
  private cachedShare(dimension: string, keys: readonly string[], minPct: number | undefined,
    build = (): DiscoveryFilter => this.share(dimension, keys[0]!, minPct, () => new Bitset(this.size))): DiscoveryFilter {
    const key = JSON.stringify([dimension, keys, minPct ?? null]);
    const hit = this.shares.get(key);
    if (hit) {
      this.shares.delete(key);
      this.shares.set(key, hit);
      return hit;
    }
    const built = build();
    this.shares.set(key, built);
    if (this.shares.size > this.sharesLimit) this.shares.delete(this.shares.keys().next().value!);
    return built;
  }

  /** The creators with a share of `key` at least `minPct` (without it: above 0): a prefix of the key's list. */
  share(dimension: string, key: string, minPct: number | undefined, take: () => Bitset): DiscoveryFilter {
    const shares = this.data.audience.get(dimension)?.get(key);
    if (!shares) return { size: 0, set: new Bitset(this.size), list: new Int32Array(0) };
    let n = 0;
    while (n < shares.pcts.length && passesShare(shares.pcts[n]!, minPct)) n++;
    const list = shares.positions.subarray(0, n);
    return { size: n, set: Bitset.of(this.size, list, take()), list };
  }

  /**
   * The listed age ranges' shares summed per creator, in the ranges' canonical
   * order (the SQL's term order, so the same double), over the creators holding
   * at least one of them: one sequential pass over the ranges' arrays.
   */
  private ageShare(ranges: readonly string[], minPct: number | undefined, into: Bitset): DiscoveryFilter {
    const columns = ranges.map((r) => this.data.ages[AGE_RANGES.indexOf(r as (typeof AGE_RANGES)[number])]).filter((c) => c !== undefined);
    const out = new Int32Array(this.size);
    let n = 0;
    for (let p = 0; p < this.size; p++) {
      let sum = 0;
      let held = false;
      for (let k = 0; k < columns.length; k++) {
        const v = columns[k]![p]!;
        if (v !== v) continue; // NaN: no share of this range
        sum = held ? sum + v : v;
        held = true;
      }
      if (held && passesShare(sum, minPct)) out[n++] = p;
    }
    const list = out.slice(0, n);
    return { size: n, set: Bitset.of(this.size, list, into), list };
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

/** A share passes `minPct` (without one: any share above 0). */
export function passesShare(pct: number, minPct: number | undefined): boolean {
  return minPct === undefined ? pct > 0 : pct >= minPct;
}
