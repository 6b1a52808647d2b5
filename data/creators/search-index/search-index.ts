import type { CreatorItem } from '../creator-item.js';
import { NULL_LAST, type CreatorSearchFilters, type CreatorSort } from '../creator-search.queries.js';
import type { SortKey } from '../creator-taxonomy.js';
import { postedSinceUs, searchContext, type SearchContext } from '../search-context.js';
import { Bitset, complement, fixedCount, positionsOf, positionsWithin, ScratchSets } from './bitset.js';
import { HandleTable } from './handle-table.js';
import { DiscoveryFilters, passesSum, type DiscoveryData, type ShareTest } from './discovery-filters.js';
import type { ShareColumn } from './share-column.js';
import {
  deltaItem,
  deltaMatches,
  deltaSortValue,
  type BaseFingerprints,
  type DeltaRow,
  type SearchDelta,
} from './search-delta.js';
import type { TextIndex } from './text-index.js';
import type { PackedStrings } from './packed-strings.js';

/** A categorical column: codes by position (0 = NULL, k = dictionary[k - 1]) and a bit array per code. */
export interface CategoricalColumn {
  dictionary: readonly string[];
  codes: Uint8Array | Uint16Array | Uint32Array;
  /** Per code (index = code), the positions holding it; absent for columns with many values (city). */
  sets: ReadonlyArray<Bitset> | null;
  /**
   * Per code, its positions as runs `[start, end, start, end, …)`: only for the
   * columns positions are clustered on (`CLUSTERED`), where a value holds a few runs.
   */
  runs: ReadonlyArray<Int32Array> | null;
}

/**
 * The columns positions are ordered by, outermost first (then creator id): a
 * platform is one run of positions, a niche a run per platform, a country a run
 * per platform and niche. A search naming them starts from the runs their
 * values share, so it reads the creators it may match, not the store.
 */
export const CLUSTERED: readonly CategoricalName[] = ['platform', 'niche', 'country'];

/** A numeric column: values by position (NaN = NULL) and the positions in value order. */
export interface NumericColumn {
  values: Float64Array;
  /** Ascending by value, then creator id; NULLs last. */
  asc: Int32Array;
  /** Descending by value, then creator id ascending; NULLs last. Only for sort keys. */
  desc: Int32Array | null;
}

export type { AudienceShares } from './discovery-filters.js';

export type CategoricalName = 'platform' | 'niche' | 'country' | 'language' | 'city' | 'verified';
export type NumericName =
  | 'followers'
  | 'engagement_rate'
  | 'growth_30d_pct'
  | 'authenticity_score'
  | 'audience_us_pct'
  | 'avg_views'
  | 'reels_avg_views'
  | 'last_posted_us'
  | 'price_post_usd';

/** Everything the index holds, as the loader builds it from one consistent read of the store. */
export interface SearchIndexData {
  /** The store's data version the index reflects. */
  version: string;
  /** creator_id by position; positions follow `CLUSTERED`, then creator_id. */
  ids: Int32Array;
  /** The positions in creator_id order: finds a creator's position by binary search. */
  byId: Int32Array;
  categorical: Readonly<Record<CategoricalName, CategoricalColumn>>;
  numeric: Readonly<Record<NumericName, NumericColumn>>;
  /** Content terms, yes/no flags and audience shares on every dimension. */
  discovery: DiscoveryData;
  text: TextIndex;
  /** Handles and display names by position: with the columns above, a page's Creator items come from memory. */
  handles: PackedStrings;
  displayNames: PackedStrings;
  /** Per position, fingerprints of the row and of its audience countries: what a later delta compares with. */
  fingerprints: { rows: Int32Array; audience: Int32Array };
}

/**
 * A numeric column's suffix bit arrays: set k holds `asc[starts[k]..nonNull)`, and `starts[sets.length]` is
 * `nonNull` (the empty suffix). A start never splits a run of equal values, so a suffix is every creator whose
 * value is at least its first value: the same set in either sort direction (see `SearchIndex.rangeSet` and
 * `SearchIndex.bucketed`).
 */
export interface RangeSuffixes {
  sets: Bitset[];
  starts: Int32Array;
  nonNull: number;
}

/**
 * A numeric column's SUFFIX_SETS bit arrays (fewer when runs of equal values are long): each start is the start
 * of the run of equal values nearest to a multiple of nonNull/SUFFIX_SETS; from the last bucket to the first,
 * each set is the next one plus its own bucket.
 */
export function rangeSuffixes({ asc, values }: Pick<NumericColumn, 'asc' | 'values'>, size: number): RangeSuffixes {
  const nonNull = lowerBound(asc, values, () => false);
  const step = Math.max(1, Math.ceil(nonNull / SUFFIX_SETS));
  const starts = nonNull === 0 ? [] : [0];
  for (let at = step; at < nonNull; at += step) {
    const v = values[asc[at]!]!;
    const first = lowerBound(asc, values, (x) => x >= v);
    const past = lowerBound(asc, values, (x) => x > v);
    const start = at - first <= past - at ? first : past;
    if (start > starts.at(-1)! && start < nonNull) starts.push(start);
  }
  const count = starts.length;
  starts.push(nonNull);
  const sets: Bitset[] = [];
  let current = new Bitset(size);
  for (let k = count - 1; k >= 0; k--) {
    current = current.clone();
    for (let i = starts[k]!; i < starts[k + 1]!; i++) current.add(asc[i]!);
    sets[k] = current;
  }
  return { sets, starts: Int32Array.from(starts), nonNull };
}

/** A page of matches: positions in order, with each one's creator id and sort value. */
export interface IndexPage {
  total: number;
  /** `position`: the row's base position, for `item` (none for a delta's rows). */
  rows: Array<{ creator_id: number; sort_value: number; position?: number }>;
}

/** Suffix bit arrays per numeric column: a broad range costs at most 2·N/SUFFIX_SETS single-bit writes. */
const SUFFIX_SETS = 32;
/** A list filter matching more than 1/BROAD_SHARE of the creators is turned into a bit array. */
const BROAD_SHARE = 32;
/**
 * Nor is a list longer than this tested position by position, whatever the store's size: a list's positions
 * are scattered over the columns, and a test at a scattered position costs what a pass over about 8 of a bit
 * array's words does at 1M creators, but 30–50 at 10M, where the columns no longer fit in the cache
 * (docs/search.md, "At 10M, the planner").
 */
const LIST_MAX = 32_768;
/**
 * What choosing a page among the matches costs per match, in steps of a walk along the sort order: two scattered
 * reads against one scattered bit test, 4–7 steps' worth in a micro-benchmark at 1M and 10M creators.
 */
const WALK_STEPS_PER_MATCH = 4;
/**
 * What choosing a page costs per match, in words of a pass over a bit array: at 10M creators about 100 ns a
 * match (30,000 matches took 3.5 ms, each a scattered read of a sort value) against 2–3 ns a word.
 */
const WORDS_PER_CHOSEN_MATCH = 40;

const SORT_COLUMN: Readonly<Record<SortKey, NumericName>> = {
  followers: 'followers',
  engagement_rate: 'engagement_rate',
  growth_30d: 'growth_30d_pct',
  authenticity_score: 'authenticity_score',
  price: 'price_post_usd',
};

/**
 * One filter of a search in a form the evaluation loop runs without calls: a bit
 * array, a value range over a numeric column, or a set of codes. `list`, when
 * present, holds its matches (any order), so it can drive the loop.
 */
type Filter =
  | { kind: 'bits'; size: number; set: Bitset }
  | { kind: 'spans'; size: number; spans: Int32Array }
  | {
      kind: 'range';
      size: number;
      values: Float64Array;
      lo: number;
      hi: number;
      positive: boolean;
      list: Int32Array;
      column: NumericName;
      from: number;
      to: number;
    }
  | { kind: 'codes'; size: number; codes: CategoricalColumn['codes']; wanted: Uint8Array; list: Int32Array }
  | { kind: 'list'; size: number; set: Bitset; list: Int32Array }
  /** Shares by position (audience_age, a dense audience key), tested on the positions another filter lists; never drives. */
  | { kind: 'sum'; size: number; columns: readonly ShareColumn[]; min: number; strict: boolean };
/** The filters a search over the whole store's bit arrays plans (the clustered runs are planned apart). */
type SetFilter = Exclude<Filter, { kind: 'spans' } | { kind: 'sum' }>;
type SumFilter = Filter & { kind: 'sum' };

/**
 * An in-memory search index over the creators: bit arrays per categorical value,
 * value-ordered positions per numeric column, audience shares per country and a
 * token index over the search text. A search starts from its most selective
 * filter and tests the others on those positions only, so it costs what that
 * filter matches, not what the store holds; totals are exact. The rules are the
 * SQL's (`filterSql`, `keysetSql`): the property test in
 * test/unit/search-index.test.ts holds them equal.
 */
export class SearchIndex {
  readonly size: number;
  /** The base positions still current (all but the delta's dead ones); null without a delta. */
  private readonly live: Bitset | null;
  private readonly deltaById: ReadonlyMap<number, DeltaRow>;
  private readonly scratch: ScratchSets;
  private readonly discovery: DiscoveryFilters;

  /**
   * @param broadShare a list filter matching more than size/broadShare creators is turned into a bit array
   *   (tests vary it so that both ways of evaluating a filter are held to the SQL)
   * @param delta the creators changed since the data was read: their base rows are skipped, their current
   *   rows tested one by one (see `withDelta`)
   */
  constructor(
    private readonly data: SearchIndexData,
    private readonly broadShare = BROAD_SHARE,
    private readonly delta: SearchDelta | null = null,
    private readonly suffixCache = new Map<NumericName, RangeSuffixes>(),
    discovery?: DiscoveryFilters,
  ) {
    this.discovery = discovery ?? new DiscoveryFilters(data.discovery, data.ids.length, (id) => this.positionOf(id));
    this.size = data.ids.length;
    this.live = delta ? complement(delta.dead) : null;
    this.scratch = new ScratchSets(this.size);
    this.deltaById = new Map((delta?.rows ?? []).map((r) => [r.creator_id, r]));
  }

  /** The longest list tested position by position (longer ones become bit arrays). */
  private get listMax(): number {
    return Math.min(this.size / this.broadShare, LIST_MAX);
  }

  /** How many changed creators the delta holds (0 without one). */
  get deltaSize(): number {
    return this.delta ? Math.max(this.delta.rows.length, this.delta.dead.count()) : 0;
  }

  /**
   * The index of a later data version without a rebuild: the same base, with the
   * creators that changed since answered from their current rows. Cheap while
   * the changes are few (a load of thousands into millions).
   */
  withDelta(delta: SearchDelta): SearchIndex {
    return new SearchIndex(this.data, this.broadShare, delta, this.suffixCache, this.discovery);
  }

  /** The data version of the base (the data read at the build, before any delta). */
  get baseVersion(): string {
    return this.data.version;
  }

  /** The base's fingerprints, for computing a delta against it. */
  baseFingerprints(): BaseFingerprints {
    return {
      ids: this.data.ids,
      rows: this.data.fingerprints.rows,
      audience: this.data.fingerprints.audience,
      positionOf: (id) => this.positionOf(id),
    };
  }

  /**
   * The Creator item of the creator with this id, as the index holds it (the data version it was built from);
   * `position`, its base position when known (a search's row), spares looking it up.
   */
  item(creatorId: number, position?: number): CreatorItem | null {
    const changed = this.deltaById.get(creatorId);
    if (changed) return deltaItem(changed);
    const p = position ?? this.positionOf(creatorId);
    if (p < 0 || (this.live && !this.live.has(p))) return null;
    const { categorical: c, numeric: n } = this.data;
    const label = (name: CategoricalName): string | null => {
      const code = c[name].codes[p]!;
      return code === 0 ? null : c[name].dictionary[code - 1]!;
    };
    const num = (name: NumericName): number | null => {
      const v = n[name].values[p]!;
      return Number.isNaN(v) ? null : v;
    };
    return {
      handle: this.data.handles.get(p) ?? '',
      platform: label('platform')!,
      display_name: this.data.displayNames.get(p),
      niche: label('niche')!,
      country: label('country'),
      followers: n.followers.values[p]!,
      engagement_rate: num('engagement_rate'),
      audience_us_pct: num('audience_us_pct'),
      verified: label('verified') === 'true',
    };
  }

  /** Binary search over the positions in creator_id order. */
  private positionOf(creatorId: number): number {
    const { ids, byId } = this.data;
    let lo = 0;
    let hi = byId.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const p = byId[mid]!;
      const v = ids[p]!;
      if (v === creatorId) return p;
      if (v < creatorId) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** What the index files hold (index-files.ts): the base data and the range suffix sets, built first. */
  fileParts(): { data: SearchIndexData; suffixes: ReadonlyMap<NumericName, RangeSuffixes> } {
    this.buildSuffixes();
    return { data: this.data, suffixes: this.suffixCache };
  }

  /**
   * Builds what the first searches would otherwise build, off the request path: the range suffix sets, then
   * the handle table in slices of the event loop (handle-table.ts), for an index already serving.
   */
  async prepare(): Promise<void> {
    // after the request that adopted the index
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.buildSuffixes();
    await HandleTable.prepare(this.data.handles);
  }

  private buildSuffixes(): void {
    for (const name of Object.keys(this.data.numeric) as NumericName[]) this.suffixes(name);
  }

  /**
   * The creators holding `handle` (as stored: `@` and lower case) at the index's data
   * version, ordered by platform as the store's handle lookup answers them.
   */
  handleMatches(handle: string): Array<{ creator_id: number; platform: string }> {
    const platform = this.data.categorical.platform;
    const out: Array<{ creator_id: number; platform: string }> = [];
    for (const p of HandleTable.of(this.data.handles).positions(handle)) {
      if (this.live && !this.live.has(p)) continue;
      out.push({ creator_id: this.data.ids[p]!, platform: platform.dictionary[platform.codes[p]! - 1]! });
    }
    for (const row of this.delta?.rows ?? [])
      if (row.handle === handle) out.push({ creator_id: row.creator_id, platform: row.platform });
    return out.sort((a, b) => (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0));
  }

  /** What a lookalike search reads (lookalikes.ts): the base data, its live positions (null: all) and the changed creators. */
  lookalikeView(): { data: SearchIndexData; live: Bitset | null; delta: readonly DeltaRow[] } {
    return { data: this.data, live: this.live, delta: this.delta?.rows ?? [] };
  }

  /** A creator's base position (-1: none, or changed since the base: see `lookalikeView`'s delta). */
  basePosition(creatorId: number): number {
    const p = this.positionOf(creatorId);
    return p < 0 || (this.live && !this.live.has(p)) ? -1 : p;
  }

  /** The base positions matching `filters` (null: every position) and the changed creators matching them. */
  matching(filters: CreatorSearchFilters, context: SearchContext): { base: Int32Array | null; delta: DeltaRow[] } {
    this.scratch.reset();
    const delta = (this.delta?.rows ?? []).filter((r) => deltaMatches(r, filters, context));
    const plan = this.plan(filters, context);
    if (plan === 'none') return { base: new Int32Array(0), delta };
    return { base: plan.length === 0 ? null : evaluate(plan), delta };
  }

  /** The same index evaluating broad filters differently (see the constructor), with scratch sets of its own. */
  withBroadShare(broadShare = this.broadShare): SearchIndex {
    return new SearchIndex(this.data, broadShare, this.delta, this.suffixCache, this.discovery);
  }

  /** The data version the index answers for: the delta's when it has one. */
  get version(): string {
    return this.delta?.version ?? this.data.version;
  }

  /**
   * The total under `filters` and the page of `limit` positions after `after` in `sort` order;
   * `context`: the request's time and excluded lists (see SearchContext).
   */
  search(
    filters: CreatorSearchFilters,
    sort: CreatorSort,
    after: readonly [number, number] | null,
    limit: number,
    context: SearchContext = searchContext(Date.now()),
  ): IndexPage {
    this.scratch.reset();
    const base = this.searchBase(filters, sort, after, limit, context);
    if (!this.delta) return base;
    const changed = this.searchDelta(filters, sort, after, context);
    return {
      total: base.total + changed.total,
      rows: mergeOrdered(base.rows, changed.rows, sort.descending).slice(0, limit),
    };
  }

  /** The delta's rows matching the filters: all of them counted, those after the keyset returned. */
  private searchDelta(
    filters: CreatorSearchFilters,
    sort: CreatorSort,
    after: readonly [number, number] | null,
    context: SearchContext,
  ): IndexPage {
    const rows: IndexPage['rows'] = [];
    let total = 0;
    for (const row of this.delta!.rows) {
      if (!deltaMatches(row, filters, context)) continue;
      total++;
      const v = deltaSortValue(row, sort, NULL_LAST);
      if (after && !isAfterKeyset(v, row.creator_id, sort, after)) continue;
      rows.push({ creator_id: row.creator_id, sort_value: v });
    }
    return { total, rows };
  }

  private searchBase(
    filters: CreatorSearchFilters,
    sort: CreatorSort,
    after: readonly [number, number] | null,
    limit: number,
    context: SearchContext,
  ): IndexPage {
    const plan = this.plan(filters, context);
    if (plan === 'none') return { total: 0, rows: [] };
    const order = this.order(sort);
    // a range filter on the sort column bounds the walk to its stretch of the order: every match lies within it
    const span = this.sortSpan(filters, sort, order, context);
    const start = Math.max(span.from, this.afterKeyset(order, sort, after));
    // Walking the stretch costs about limit × its length / total steps, each a read in order and a bit test;
    // choosing among the matches costs `total` scattered reads of a sort value and an id, counted as
    // WALK_STEPS_PER_MATCH steps each. Matches can bunch away from the order's start (a filter that goes with the sort
    // value, as growth with authenticity): a walk is given up after four times the steps matches spread evenly
    // would take (at least a 64th of the store), or twice the steps choosing would, and the sort column's suffix
    // sets find the stretch of the order its page lies in (at 10M a walk of a 16th of the store took 5.5 ms).
    const length = span.to - span.from;
    const budget = (total: number): number =>
      Math.min(2 * WALK_STEPS_PER_MATCH * total, Math.max((4 * limit * length) / total, this.size >>> 6));
    // paging through the suffix sets costs a few passes over the words: fewer matches than that are chosen among
    // (the walk's null)
    const suffixPaging = ((Math.log2(SUFFIX_SETS) + 3) * this.size) / 32 / WORDS_PER_CHOSEN_MATCH;
    const walk = (set: Bitset | null, total: number): IndexPage['rows'] | null =>
      set
        ? (this.walk(order.positions, start, span.to, limit, sort, set, budget(total)) ??
          (total < suffixPaging ? null : this.bucketed(set, sort, start, span.to, after, limit)))
        : this.walk(order.positions, start, span.to, limit, sort, null, Infinity);
    if (plan.length === 0) return { total: this.size, rows: walk(null, this.size)! };
    const only = plan.length === 1 ? plan[0]! : null;
    const set = only && (only.kind === 'bits' || only.kind === 'list') ? only.set : null;
    const total = set ? only!.size : 0;
    if (set && WALK_STEPS_PER_MATCH * total * total > limit * length) {
      const rows = walk(set, total);
      if (rows) return { total, rows };
    }
    const matches = set && only!.kind === 'bits' ? positionsOf(set, total) : evaluate(plan);
    if (!set && matches.length * matches.length > limit * length) {
      const rows = walk(Bitset.of(this.size, matches, this.scratch.take()), matches.length);
      if (rows) return { total: matches.length, rows };
    }
    return { total: matches.length, rows: this.select(matches, order, sort, after, limit) };
  }

  /**
   * The filters as index filters, most selective first; 'none' when one of them
   * matches nothing. The audience filters held by position are tested on the
   * other filters' matches when those are few; otherwise (or when cached) each
   * is one pass over the store, which the cache then keeps.
   */
  private plan(f: CreatorSearchFilters, context: SearchContext): Filter[] | 'none' {
    const tests = this.discovery.tests(f);
    const others = tests.length > 0 ? withoutFields(f, tests) : null;
    if (others && hasAnyFilter(others)) {
      const planned = this.planFilters(others, context);
      if (planned === 'none') return 'none';
      const driver = planned[0];
      if (driver && driver.size <= (driver.kind === 'spans' ? this.size / this.broadShare : this.listMax)) {
        return [
          ...planned,
          ...tests.map(
            (t): SumFilter => ({ kind: 'sum', size: this.size, columns: t.columns, min: t.min, strict: t.strict }),
          ),
        ];
      }
    }
    return this.planFilters(f, context);
  }

  private planFilters(f: CreatorSearchFilters, context: SearchContext): Filter[] | 'none' {
    const spans = this.clusteredSpans(f);
    if (spans === 'none') return 'none';
    const content = this.discovery.of(f, context, () => this.scratch.take(), this.listMax);
    if (content === 'none') return 'none';
    const extra: SetFilter[] = content.map((x) =>
      x.list ? { kind: 'list', size: x.size, set: x.set, list: x.list } : { kind: 'bits', size: x.size, set: x.set },
    );
    if (spans && spans.size <= this.size / this.broadShare) return this.planWithinSpans(f, spans, context, extra);
    return this.planOverSets(f, context, extra);
  }

  /**
   * The runs of positions holding the search's platform, niche and country
   * values (null when it names none of them): an intersection of a few hundred
   * runs at most, whatever the store's size.
   */
  private clusteredSpans(f: CreatorSearchFilters): { size: number; spans: Int32Array } | null | 'none' {
    let spans: Int32Array | null = null;
    for (const [name, values] of categoricalValues(f)) {
      const runs = this.data.categorical[name].runs;
      if (!runs) continue;
      const own = unionSpans(this.codesOf(name, values).map((code) => runs[code]!));
      spans = spans ? intersectSpans(spans, own) : own;
      if (spans.length === 0) return 'none';
    }
    return spans && { size: spansSize(spans), spans };
  }

  /** The codes of the values the column holds (values it never saw match nothing). */
  private codesOf(name: CategoricalName, values: readonly string[]): number[] {
    const dictionary = this.data.categorical[name].dictionary;
    return values.map((v) => dictionary.indexOf(v) + 1).filter((c) => c > 0);
  }

  /**
   * A search whose clustered values hold few creators: those runs drive (unless
   * another filter lists fewer), and every other filter is tested position by
   * position — no pass over the whole store's words.
   */
  private planWithinSpans(
    f: CreatorSearchFilters,
    spans: { size: number; spans: Int32Array },
    context: SearchContext,
    extra: SetFilter[],
  ): Filter[] | 'none' {
    const tests: Filter[] = [];
    const clustered: Filter[] = [];
    for (const [name, values] of categoricalValues(f)) {
      const column = this.data.categorical[name];
      if (column.runs || !column.sets) (column.runs ? clustered : tests).push(this.codeTest(name, values));
      else {
        const set = this.categoricalSet(name, values);
        if (set === 'none') return 'none';
        tests.push({ kind: 'bits', size: this.size, set: set! });
      }
    }
    for (const word of f.q ?? []) tests.push({ kind: 'bits', size: this.size, set: this.data.text.matching(word) });
    if (this.live) tests.push({ kind: 'bits', size: this.size, set: this.live });
    tests.push(...this.rangeFilters(f, context), ...extra);
    if (f.audience_country && f.audience_country !== 'US')
      tests.push(this.audienceFilter(f.audience_country, f.audience_country_min_pct));
    if (tests.some((x) => x.size === 0)) return 'none';
    const lists = tests.filter((x) => x.kind === 'range' || x.kind === 'list').sort((a, b) => a.size - b.size);
    const rest = tests.filter((x) => x.kind !== 'range' && x.kind !== 'list');
    // the smallest list drives when it is smaller than the runs; the clustered values are then tested by code
    if (lists.length > 0 && lists[0]!.size < spans.size) return [lists[0]!, ...clustered, ...lists.slice(1), ...rest];
    return [{ kind: 'spans', ...spans }, ...lists, ...rest];
  }

  /** The filters over the whole store: bit arrays intersected a word at a time, lists tested one by one. */
  private planOverSets(f: CreatorSearchFilters, context: SearchContext, extra: SetFilter[]): Filter[] | 'none' {
    const filters: SetFilter[] = [];
    // the bit arrays to intersect, each with how many it holds (a lone one's count is then known without a pass)
    const sets: Bitset[] = [];
    const sizes: number[] = [];
    const add = (set: Bitset, size: number): void => {
      sets.push(set);
      sizes.push(size);
    };
    for (const [name, values] of categoricalValues(f)) {
      const set = this.categoricalSet(name, values);
      if (set === 'none') return 'none';
      if (set) add(set, this.categoricalCount(name, values));
      else filters.push(this.codeFilter(name, values));
    }
    for (const word of f.q ?? []) {
      const set = this.data.text.matching(word);
      add(set, fixedCount(set));
    }
    // with a delta, the changed and deleted creators' base rows are out: their current rows are the delta's
    if (this.live) add(this.live, fixedCount(this.live));
    filters.push(...this.rangeFilters(f, context));
    for (const x of extra) {
      if (x.kind === 'bits') add(x.set, x.size);
      else filters.push(x);
    }
    // US reads the precomputed audience_us_pct column (a range above), as the SQL does
    if (f.audience_country && f.audience_country !== 'US')
      filters.push(this.audienceFilter(f.audience_country, f.audience_country_min_pct));
    if (filters.some((x) => x.size === 0)) return 'none';
    // A broad list joins the bit arrays: its positions are in value order (random in memory), and
    // testing them one by one misses the cache, while setting bits in an N/8-byte array does not.
    const lists = filters.filter((x) => x.size <= this.listMax || x.kind === 'bits');
    for (const x of filters) {
      if (lists.includes(x)) continue;
      add(
        x.kind === 'list' || x.kind === 'bits'
          ? x.set
          : x.kind === 'range'
            ? this.rangeSet(x.column, x.from, x.to)
            : Bitset.of(this.size, x.list, this.scratch.take()),
        x.size,
      );
    }
    if (sets.length > 0) {
      const { set, count } =
        sets.length === 1 ? { set: sets[0]!, count: sizes[0]! } : Bitset.intersect(sets, this.scratch.take());
      if (count === 0) return 'none';
      lists.push({ kind: 'bits', size: count, set });
    }
    return lists.sort((a, b) => a.size - b.size);
  }

  /** How many creators hold one of the values (a column's values are disjoint: the sum of theirs). */
  private categoricalCount(name: CategoricalName, values: readonly string[]): number {
    const sets = this.data.categorical[name].sets!;
    return [...new Set(this.codesOf(name, values))].reduce((n, code) => n + fixedCount(sets[code]!), 0);
  }

  /** One bit array for a categorical filter's values (their union), or null when the column keeps none. */
  private categoricalSet(name: CategoricalName, values: readonly string[]): Bitset | null | 'none' {
    const column = this.data.categorical[name];
    if (!column.sets) return null;
    const codes = this.codesOf(name, values);
    if (codes.length === 0) return 'none';
    if (codes.length === 1) return column.sets[codes[0]!]!;
    const union = column.sets[codes[0]!]!.copy(this.scratch.take());
    for (const code of codes.slice(1)) union.orInPlace(column.sets[code]!);
    return union;
  }

  /** A categorical filter tested by code on each position it is asked about (it never drives, so lists nothing). */
  private codeTest(name: CategoricalName, values: readonly string[]): Filter & { kind: 'codes' } {
    const column = this.data.categorical[name];
    const wanted = new Uint8Array(column.dictionary.length + 1);
    for (const code of this.codesOf(name, values)) wanted[code] = 1;
    return { kind: 'codes', size: this.size, codes: column.codes, wanted, list: new Int32Array(0) };
  }

  /** A filter over a column without bit arrays (city): lists its matches with one pass over the codes. */
  private codeFilter(name: CategoricalName, values: readonly string[]): SetFilter {
    const test = this.codeTest(name, values);
    const { codes, wanted } = test;
    const out: number[] = [];
    for (let p = 0; p < codes.length; p++) if (wanted[codes[p]!] === 1) out.push(p);
    return { ...test, size: out.length, list: Int32Array.from(out) };
  }

  /** Range filters: the slice of the value order between the bounds (NULL never matches, as in SQL). */
  private rangeFilters(f: CreatorSearchFilters, context: SearchContext): SetFilter[] {
    const filters: SetFilter[] = [];
    for (const [name, min, max, positiveOnly] of rangeBounds(f, context)) {
      if (min === undefined && max === undefined && !positiveOnly) continue;
      filters.push(this.rangeFilter(name, min, max, positiveOnly));
    }
    return filters;
  }

  /**
   * The stretch `[from, to)` of the sort order whose values pass the search's
   * range filters on the sort column (the whole order when it has none): the
   * positions before and after it cannot match, so a walk skips them.
   */
  private sortSpan(
    f: CreatorSearchFilters,
    sort: CreatorSort,
    order: { positions: Int32Array; values: Float64Array },
    context: SearchContext,
  ): { from: number; to: number } {
    const { positions, values } = order;
    let from = 0;
    let to = positions.length;
    for (const [name, min, max] of rangeBounds(f, context)) {
      if (name !== SORT_COLUMN[sort.key] || (min === undefined && max === undefined)) continue;
      // NULLs are last both ways (lowerBound counts them past every bound) and match no range
      const lo = (v: number): boolean => min === undefined || v >= min;
      const hi = (v: number): boolean => max === undefined || v <= max;
      from = Math.max(
        from,
        lowerBound(positions, values, (v) => (sort.descending ? hi(v) : lo(v))),
      );
      to = Math.min(
        to,
        lowerBound(positions, values, (v) => (sort.descending ? !lo(v) : !hi(v))),
      );
    }
    return { from, to: Math.max(from, to) };
  }

  private rangeFilter(
    name: NumericName,
    min: number | undefined,
    max: number | undefined,
    positive: boolean,
  ): SetFilter {
    const { values, asc } = this.data.numeric[name];
    // asc holds non-NULL values ascending, then the NULLs: both bounds are binary searches
    const from = lowerBound(asc, values, (v) => (positive ? v > 0 : min === undefined || v >= min));
    const to = lowerBound(asc, values, (v) => max !== undefined && v > max);
    const list = asc.subarray(from, Math.max(from, to));
    return {
      kind: 'range',
      size: list.length,
      values,
      lo: min ?? -Infinity,
      hi: max ?? Infinity,
      positive,
      list,
      column: name,
      from,
      to: from + list.length,
    };
  }

  /**
   * The positions `asc[from..to)` of a column as a bit array, from the column's
   * precomputed suffix sets: one copy, one AND NOT, and at most two partial
   * buckets of half a bucket each set or cleared bit by bit (each bound takes the
   * nearer suffix) — instead of one random write per position.
   */
  private rangeSet(name: NumericName, from: number, to: number): Bitset {
    const { asc } = this.data.numeric[name];
    const { sets, starts, nonNull } = this.suffixes(name);
    // the suffix starting nearest to i (past the last one: none, the empty suffix at nonNull)
    const nearest = (i: number): { set: Bitset | null; start: number } => {
      let k = 0;
      let hi = sets.length;
      while (k < hi) {
        const mid = (k + hi) >>> 1;
        if (starts[mid + 1]! <= i) k = mid + 1;
        else hi = mid;
      }
      // starts[k] ≤ i < starts[k + 1]: the nearer of the two
      if (k < sets.length && starts[k + 1]! - i < i - starts[k]!) k++;
      return { set: sets[k] ?? null, start: starts[k]! };
    };
    const head = nearest(from);
    const tail = to < nonNull ? nearest(to) : null;
    // a narrow range: its own positions written one by one cost less than a suffix set's copy, the AND NOT
    // and the bits fixed at both ends (a range of 32,768 to N/32 positions, which are bit arrays past 1M)
    const fixed = Math.abs(from - head.start) + (tail ? Math.abs(to - tail.start) : 0);
    if (to - from <= fixed + (tail ? sets[0]!.words.length : 0))
      return Bitset.of(this.size, asc.subarray(from, to), this.scratch.take());
    const set = head.set ? head.set.copy(this.scratch.take()) : Bitset.of(this.size, [], this.scratch.take());
    // (an empty stretch when its start is past its end)
    set.addAll(asc.subarray(from, head.start));
    set.removeAll(asc.subarray(head.start, from));
    if (tail) {
      if (tail.set) set.andNotInPlace(tail.set);
      set.removeAll(asc.subarray(to, tail.start));
      // a suffix starting before `to` took positions of the range too: they go back
      set.addAll(asc.subarray(Math.max(from, tail.start), to));
    }
    return set;
  }

  /** Per numeric column, SUFFIX_SETS bit arrays: set k holds `asc[k·step..nonNull)`. Built on first use. */
  private suffixes(name: NumericName): RangeSuffixes {
    const cached = this.suffixCache.get(name);
    if (cached) return cached;
    const built = rangeSuffixes(this.data.numeric[name], this.size);
    this.suffixCache.set(name, built);
    return built;
  }

  /** `audience_country` other than US: the creators whose audience share of the country is at least the minimum. */
  private audienceFilter(country: string, minPct: number | undefined): SetFilter {
    const share = this.discovery.share('country', country, minPct, () => this.scratch.take());
    return { kind: 'list', size: share.size, set: share.set, list: share.list! };
  }

  private order(sort: CreatorSort): { positions: Int32Array; values: Float64Array } {
    const column = this.data.numeric[SORT_COLUMN[sort.key]];
    return { positions: sort.descending ? column.desc! : column.asc, values: column.values };
  }

  /** The sort value as the SQL computes it: NULL mapped past the end of the order. */
  private sortValue(values: Float64Array, p: number, sort: CreatorSort): number {
    const v = values[p]!;
    return Number.isNaN(v) ? (sort.descending ? -NULL_LAST : NULL_LAST) : v;
  }

  /** The index in `order` of the first position after the keyset (the order is monotone in "is after"). */
  private afterKeyset(
    order: { positions: Int32Array; values: Float64Array },
    sort: CreatorSort,
    after: readonly [number, number] | null,
  ): number {
    if (!after) return 0;
    const isAfter = this.afterTest(order.values, sort, after);
    let lo = 0;
    let hi = order.positions.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (isAfter(order.positions[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private afterTest(values: Float64Array, sort: CreatorSort, after: readonly [number, number]): (p: number) => boolean {
    const ids = this.data.ids;
    return (p) => isAfterKeyset(this.sortValue(values, p, sort), ids[p]!, sort, after);
  }

  /**
   * The first `limit` positions of the order in `[start, end)` that are in `set` (all of them when null);
   * null when `steps` positions were read before the page was full.
   */
  private walk(
    positions: Int32Array,
    start: number,
    end: number,
    limit: number,
    sort: CreatorSort,
    set: Bitset | null,
    steps: number,
  ): IndexPage['rows'] | null {
    const column = this.data.numeric[SORT_COLUMN[sort.key]];
    const rows: IndexPage['rows'] = [];
    const stop = Math.min(end, start + steps);
    let i = start;
    for (; i < stop && rows.length < limit; i++) {
      const p = positions[i]!;
      if (!set || set.has(p))
        rows.push({ creator_id: this.data.ids[p]!, sort_value: this.sortValue(column.values, p, sort), position: p });
    }
    return rows.length < limit && i < end ? null : rows;
  }

  /**
   * The page of the matches `set` from the sort column's suffix sets, for matches that bunch away from the
   * order's start (a walk gave up). Suffix set k is the order's end from `starts[k]` on, ascending; descending, it
   * is the order's start (no start splits a run of equal values). The matches a stretch of the order's start holds
   * are then counted in one pass over the words, and a binary search over the stretches finds the first holding
   * `limit`: the matches before its last bucket (fewer than `limit`) are listed from the bits and the rest walked
   * in that bucket alone — a few passes and one bucket's steps, where the walk would have read the whole order.
   * Null when the stretch holds fewer than `limit` matches after the keyset (the caller chooses among them all).
   */
  private bucketed(
    matches: Bitset,
    sort: CreatorSort,
    start: number,
    end: number,
    after: readonly [number, number] | null,
    limit: number,
  ): IndexPage['rows'] | null {
    // counted against several suffix sets, then listed: where the kernel runs those passes
    const set = this.scratch.held(matches);
    const name = SORT_COLUMN[sort.key];
    const { sets, starts, nonNull } = this.suffixes(name);
    const { asc, values } = this.data.numeric[name];
    const counts = new Map<number, number>();
    // the matches in suffix set k (k = sets.length: the empty suffix)
    const inSuffix = (k: number): number => {
      if (k >= sets.length) return 0;
      let n = counts.get(k);
      if (n === undefined) counts.set(k, (n = Bitset.countBoth(set, sets[k]!)));
      return n;
    };
    // the stretches of the order's start as suffix indexes, shortest first, with the matches each holds
    // (no start splits a run of equal values, so a suffix is the order's start descending as well)
    const ks = (i: number): number => (sort.descending ? sets.length - i : i);
    const all = inSuffix(0);
    const held = (k: number): number => (sort.descending ? inSuffix(k) : all - inSuffix(k));
    const length = (k: number): number => (sort.descending ? nonNull - starts[k]! : starts[k]!);
    const positions = sort.descending ? this.data.numeric[name].desc! : asc;
    // a keyset page: the matches before its start are counted (the last stretch up to it, then a walk to it)
    let lo = 0;
    while (lo < sets.length && length(ks(lo + 1)) <= start) lo++;
    const skipped = held(ks(lo)) + countIn(positions, length(ks(lo)), Math.min(start, nonNull), set);
    if (all - skipped < limit) return null;
    let hi = sets.length;
    while (hi - lo > 1) {
      const mid = (lo + hi) >>> 1;
      if (held(ks(mid)) - skipped >= limit) hi = mid;
      else lo = mid;
    }
    const [before, upTo] = [ks(lo), ks(hi)];
    const order = { values };
    const from = Math.max(length(before), start);
    const to = Math.min(length(upTo), end);
    // walking the last bucket reads about need × its length / its matches positions, when they spread evenly
    // in it; listing the stretch's matches costs one pass over the words and a choice among those matches
    const passed = Math.max(held(before), skipped);
    const inBucket = held(upTo) - passed;
    const need = limit - (passed - skipped);
    const listing = WALK_STEPS_PER_MATCH * held(upTo) + set.words.length;
    const listed = (): IndexPage['rows'] | null => {
      const rows = this.select(this.heldIn(set, sets, upTo, held(upTo), sort.descending), order, sort, after, limit);
      return rows.length < limit ? null : rows;
    };
    if ((need * (to - from)) / inBucket > listing) return listed();
    // Matches can bunch at the bucket's end too, and a bucket can be most of the order (sorted descending by a
    // value with many ties, as prices, few stretch ends are free of ties): the walk gives up past what listing
    // costs, and the stretch's matches are listed instead (at 10M, a walk of 9M positions took 43 ms).
    const rest = this.walk(positions, from, to, need, sort, set, listing);
    if (!rest) return listed();
    // the matches of the stretch before the last bucket (none when the keyset is past it)
    const rows =
      length(before) > start
        ? this.select(this.heldIn(set, sets, before, held(before), sort.descending), order, sort, after, limit)
        : [];
    return rows.length + rest.length < limit ? null : [...rows, ...rest];
  }

  /**
   * The `count` members of `set` in the stretch of the order's start that suffix set k bounds (see `bucketed`):
   * ascending, in suffix set 0 and not in suffix set k; descending, in suffix set k.
   */
  private heldIn(set: Bitset, suffixes: readonly Bitset[], k: number, count: number, descending: boolean): Int32Array {
    if (count === 0) return new Int32Array(0);
    return descending
      ? positionsWithin(set, count, suffixes[k]!, null)
      : positionsWithin(set, count, suffixes[0]!, suffixes[k] ?? null);
  }

  /**
   * The first `limit` matches after the keyset, chosen from the matches
   * themselves (few of them): the best so far are kept sorted in typed arrays,
   * and most matches lose to the last of them after one comparison.
   */
  private select(
    matches: Int32Array,
    order: { values: Float64Array },
    sort: CreatorSort,
    after: readonly [number, number] | null,
    limit: number,
  ): IndexPage['rows'] {
    const isAfter = after ? this.afterTest(order.values, sort, after) : null;
    const ids = this.data.ids;
    const desc = sort.descending;
    const bestValue = new Float64Array(limit);
    const bestId = new Float64Array(limit);
    const bestPosition = new Int32Array(limit);
    let n = 0;
    // a before b: a better sort value, or the same one and a smaller creator id
    const before = (va: number, ia: number, vb: number, ib: number): boolean =>
      va === vb ? ia < ib : desc ? va > vb : va < vb;
    for (let i = 0; i < matches.length; i++) {
      const p = matches[i]!;
      if (isAfter && !isAfter(p)) continue;
      const v = this.sortValue(order.values, p, sort);
      // a value worse than the page's last loses without its id (a second scattered read) being read
      if (n === limit && v !== bestValue[n - 1] && (desc ? v < bestValue[n - 1]! : v > bestValue[n - 1]!)) continue;
      const id = ids[p]!;
      if (n === limit && !before(v, id, bestValue[n - 1]!, bestId[n - 1]!)) continue;
      let at = n < limit ? n++ : n - 1;
      while (at > 0 && before(v, id, bestValue[at - 1]!, bestId[at - 1]!)) {
        bestValue[at] = bestValue[at - 1]!;
        bestId[at] = bestId[at - 1]!;
        bestPosition[at] = bestPosition[at - 1]!;
        at--;
      }
      bestValue[at] = v;
      bestId[at] = id;
      bestPosition[at] = p;
    }
    return Array.from({ length: n }, (_, i) => ({
      creator_id: bestId[i]!,
      sort_value: bestValue[i]!,
      position: bestPosition[i]!,
    }));
  }
}

/** The search's range filters as (column, min, max, positive only), a column without bounds listed too. */
function rangeBounds(
  f: CreatorSearchFilters,
  context: SearchContext,
): Array<[NumericName, number | undefined, number | undefined, boolean]> {
  const ranges: Array<[NumericName, number | undefined, number | undefined, boolean]> = [
    ['followers', f.followers_min, f.followers_max, false],
    ['engagement_rate', f.engagement_min, f.engagement_max, false],
    ['growth_30d_pct', f.growth_30d_min, undefined, false],
    ['authenticity_score', f.authenticity_min, undefined, false],
    ['avg_views', f.avg_views_min, undefined, false],
    ['reels_avg_views', f.reels_views_min, undefined, false],
    ['price_post_usd', undefined, f.price_max, false],
    [
      'last_posted_us',
      f.last_posted_days_max === undefined ? undefined : postedSinceUs(f.last_posted_days_max, context.now),
      undefined,
      false,
    ],
  ];
  if (f.audience_country === 'US')
    ranges.push(['audience_us_pct', f.audience_country_min_pct, undefined, f.audience_country_min_pct === undefined]);
  return ranges;
}

/** Whether (sort value, creator id) comes after the keyset in `sort` order — the SQL's `keysetSql`. */
function isAfterKeyset(v: number, id: number, sort: CreatorSort, after: readonly [number, number]): boolean {
  return sort.descending
    ? v < after[0] || (v === after[0] && id > after[1])
    : v > after[0] || (v === after[0] && id > after[1]);
}

/** `a` and `b` together in sort order: sort value, then creator id ascending. */
function mergeOrdered(a: IndexPage['rows'], b: IndexPage['rows'], descending: boolean): IndexPage['rows'] {
  return [...a, ...b].sort((x, y) =>
    x.sort_value === y.sort_value
      ? x.creator_id - y.creator_id
      : descending
        ? y.sort_value - x.sort_value
        : x.sort_value - y.sort_value,
  );
}

/** The categorical filters with their wanted values (already normalised like the column). */
function categoricalValues(f: CreatorSearchFilters): Array<[CategoricalName, readonly string[]]> {
  const out: Array<[CategoricalName, readonly string[]]> = [];
  if (f.platform) out.push(['platform', f.platform]);
  if (f.niche) out.push(['niche', f.niche]);
  if (f.country) out.push(['country', [f.country]]);
  if (f.language) out.push(['language', [f.language]]);
  if (f.city) out.push(['city', [f.city]]);
  if (f.verified !== undefined) out.push(['verified', [String(f.verified)]]);
  return out;
}

/** The search without the filters the tests stand for. */
function withoutFields(f: CreatorSearchFilters, tests: readonly ShareTest[]): CreatorSearchFilters {
  const out: CreatorSearchFilters = { ...f };
  for (const t of tests) for (const field of t.fields) delete out[field];
  return out;
}

function hasAnyFilter(f: CreatorSearchFilters): boolean {
  return Object.values(f).some((v) => v !== undefined);
}

/**
 * The positions matching every filter: the first (smallest) lists them, the others keep those passing, one
 * filter at a time. Each keep writes every position and advances past it by its test's answer (0 or 1), with
 * no branch on the answer: a test that passes about half its positions would mispredict a branch on every
 * other one, which cost four times the loop itself at 10M (docs/search.md, "The bit-array kernel").
 */
function evaluate(plan: Filter[]): Int32Array {
  const [driver, ...others] = plan as [Filter, ...Filter[]];
  let rest = others;
  let out: Int32Array;
  let n = 0;
  if (driver.kind === 'spans' || driver.kind === 'sum') {
    // a sum with nothing to list its candidates (not planned so, but safe): every position is tested
    const spans = driver.kind === 'spans' ? driver.spans : Int32Array.of(0, driver.size);
    if (driver.kind === 'sum') rest = plan;
    out = new Int32Array(driver.size);
    for (let k = 0; k < spans.length; k += 2) for (let p = spans[k]!, end = spans[k + 1]!; p < end; p++) out[n++] = p;
  } else {
    // a list of the filter's own (mapped, or kept for later searches) is copied before it is narrowed
    out = driver.kind === 'bits' ? positionsOf(driver.set, driver.size) : driver.list.slice();
    n = out.length;
  }
  for (let k = 0; k < rest.length && n > 0; k++) n = keep(out, n, rest[k]!);
  return out.subarray(0, n);
}

/** Narrows `out[0..n)` to the positions passing `f`, in order; answers how many are left. */
function keep(out: Int32Array, n: number, f: Filter): number {
  let m = 0;
  switch (f.kind) {
    case 'bits':
    case 'list': {
      const words = f.set.words;
      for (let i = 0; i < n; i++) {
        const p = out[i]!;
        out[m] = p;
        m += (words[p >>> 5]! >>> (p & 31)) & 1;
      }
      return m;
    }
    case 'range': {
      // NaN (NULL) fails every comparison, as NULL does in SQL
      const { values, lo, hi } = f;
      const least = f.positive ? Math.max(lo, Number.MIN_VALUE) : lo;
      for (let i = 0; i < n; i++) {
        const p = out[i]!;
        const v = values[p]!;
        out[m] = p;
        m += +(v >= least) & +(v <= hi);
      }
      return m;
    }
    case 'codes': {
      const { codes, wanted } = f;
      for (let i = 0; i < n; i++) {
        const p = out[i]!;
        out[m] = p;
        m += wanted[codes[p]!]!;
      }
      return m;
    }
    default:
      for (let i = 0; i < n; i++) {
        const p = out[i]!;
        out[m] = p;
        m += +passes(f, p);
      }
      return m;
  }
}

/** Whether position `p` passes the filter `f`. */
function passes(f: Filter, p: number): boolean {
  switch (f.kind) {
    case 'bits':
    case 'list':
      return (f.set.words[p >>> 5]! & (1 << (p & 31))) !== 0;
    case 'range': {
      const v = f.values[p]!;
      return v >= f.lo && v <= f.hi && (!f.positive || v > 0);
    }
    case 'codes':
      return f.wanted[f.codes[p]!] === 1;
    case 'spans':
      return inSpans(f.spans, p);
    case 'sum':
      return passesSum(f, p);
  }
}

/** The first index in `order` whose value satisfies `pred` (monotone over the non-NULL prefix; NULLs never do). */
function lowerBound(order: Int32Array, values: Float64Array, pred: (v: number) => boolean): number {
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = values[order[mid]!]!;
    if (Number.isNaN(v) || pred(v)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** Runs `[start, end, …)` sorted and disjoint: the union of several such lists. */
function unionSpans(lists: readonly Int32Array[]): Int32Array {
  if (lists.length === 1) return lists[0]!;
  const pairs: Array<[number, number]> = [];
  for (const list of lists) for (let k = 0; k < list.length; k += 2) pairs.push([list[k]!, list[k + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [start, end] of pairs) {
    if (out.length > 0 && start <= out[out.length - 1]!) out[out.length - 1] = Math.max(out[out.length - 1]!, end);
    else out.push(start, end);
  }
  return Int32Array.from(out);
}

/** The positions two sorted, disjoint run lists share, as runs: one merge pass. */
function intersectSpans(a: Int32Array, b: Int32Array): Int32Array {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const start = Math.max(a[i]!, b[j]!);
    const end = Math.min(a[i + 1]!, b[j + 1]!);
    if (start < end) out.push(start, end);
    if (a[i + 1]! < b[j + 1]!) i += 2;
    else j += 2;
  }
  return Int32Array.from(out);
}

/** How many of `order[from..to)` are in `set`. */
function countIn(order: Int32Array, from: number, to: number, set: Bitset): number {
  let n = 0;
  for (let i = from; i < to; i++) if (set.has(order[i]!)) n++;
  return n;
}

function spansSize(spans: Int32Array): number {
  let n = 0;
  for (let k = 0; k < spans.length; k += 2) n += spans[k + 1]! - spans[k]!;
  return n;
}

/** Whether `p` lies in one of the runs (binary search over their ends). */
function inSpans(spans: Int32Array, p: number): boolean {
  let lo = 0;
  let hi = spans.length >>> 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (spans[mid * 2 + 1]! <= p) lo = mid + 1;
    else hi = mid;
  }
  return lo < spans.length >>> 1 && spans[lo * 2]! <= p;
}
