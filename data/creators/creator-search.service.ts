import { ValidationError, type FieldError } from '../errors.js';
import type { Store } from '../store.js';
import { toCreatorItem, type CreatorItem } from './creator-item.js';
import {
  countMatching,
  dataVersion,
  filterSql,
  projectionSorts,
  selectPage,
  type CreatorSearchFilters,
  type CreatorSort,
  type SearchPageRow,
  type SearchSource,
} from './creator-search.queries.js';
import { needsCreatorsTable } from './creator-search.discovery.js';
import { DataVersion } from './data-version.js';
import type { StateQueryable } from '../state/state-db.js';
import { VersionedCache } from './search-cache.js';
import { searchContext, type SearchContext } from './search-context.js';
import { ExclusionResolver } from './search-exclusion.js';
import type { SearchIndex } from './search-index/search-index.js';
import { SearchIndexHolder, type SearchIndexHolderOptions } from './search-index/search-index.holder.js';
import { hasIndexFiles, indexDirOf } from './search-index/index-files.js';
import { SearchProjection } from './search-projection.js';

/** A keyset position: the last row's sort value and creator id. */
export type SearchKeyset = readonly [number, number];

export interface SearchRequest {
  filters: CreatorSearchFilters;
  sort: CreatorSort;
  after: SearchKeyset | null;
  limit: number;
  /** The caller's account: whose lists `exclude_list` may name (null: none). */
  accountId?: string | null;
}

export interface SearchResult {
  /** Total creators matching the filters (whatever the page). */
  results: number;
  creators: CreatorItem[];
  /** The keyset of the last row when there is a further page. */
  next: SearchKeyset | null;
}

export interface SearchServiceOptions {
  /** How long totals and pages stay cached (default 60 s); data changes drop them sooner. */
  cacheTtlMs?: number;
  /** How often the data version is looked at (default 1 s). */
  versionCheckMs?: number;
  maxEntries?: number;
  /** Use the sorted search projection when it is current (default true). */
  projection?: boolean;
  /** Told about background work (projection rebuilds) so shutdown can wait for it. */
  track?: (work: Promise<unknown>) => void;
  /**
   * Answer from the in-memory search index when it is current (default true);
   * false searches with SQL only (the bench's comparison, and a fallback switch).
   */
  index?: boolean;
  /** Prepare the lookalike vectors with each index (default true; see SearchIndexHolderOptions). */
  prepareLookalikes?: boolean;
  /** Told when an index build finishes (logs). */
  onIndexBuilt?: SearchIndexHolderOptions['onBuilt'];
  /** The service state holding the lists `exclude_list` names (without it, exclude_list is refused). */
  state?: StateQueryable;
  /** The clock `last_posted_days_max` counts back from (epoch ms). */
  now?: () => number;
}

type Page = { creators: CreatorItem[]; next: SearchKeyset | null };

/**
 * Creator search: the rules on filter combinations, then a page and the total
 * under the filters. Totals are cached per filter set and pages per query, both
 * dropped when the creator data changes (see `VersionedCache`): the total is a
 * full count, the expensive half of a search, and the same filter set is paged
 * through many times.
 */
export class CreatorSearchService {
  private readonly totals: VersionedCache<number>;
  private readonly pages: VersionedCache<Page>;
  private readonly version: DataVersion;
  /** The file the data version was read from: a replica's snapshot switch changes it (see `currentVersion`). */
  private versionPath: string;
  private readonly projection: SearchProjection | null;
  private readonly index: SearchIndexHolder | null;
  private readonly indexed: VersionedCache<SearchResult>;
  private readonly exclusions: ExclusionResolver | null;
  private readonly now: () => number;

  constructor(
    private readonly store: Store,
    options: SearchServiceOptions = {},
  ) {
    this.version = new DataVersion(() => dataVersion(store), options.versionCheckMs ?? 1_000);
    this.versionPath = store.path;
    const version = (): Promise<string> => this.currentVersion();
    const common = { ttlMs: options.cacheTtlMs ?? 60_000, versionCheckMs: 0 };
    this.totals = new VersionedCache(version, { ...common, maxEntries: options.maxEntries ?? 5_000 });
    this.pages = new VersionedCache(version, { ...common, maxEntries: options.maxEntries ?? 5_000 });
    this.indexed = new VersionedCache(version, { ...common, maxEntries: options.maxEntries ?? 5_000 });
    this.exclusions = options.state ? new ExclusionResolver(options.state) : null;
    this.now = options.now ?? Date.now;
    this.projection = options.projection === false ? null : new SearchProjection(store, options.track);
    this.index =
      options.index === false
        ? null
        : new SearchIndexHolder(store, {
            ...(options.track ? { track: options.track } : {}),
            ...(options.onIndexBuilt ? { onBuilt: options.onIndexBuilt } : {}),
            ...(options.prepareLookalikes === false ? { prepareLookalikes: false } : {}),
          });
  }

  async search(request: SearchRequest): Promise<SearchResult> {
    checkFilterRules(request.filters);
    const context = await this.contextFor(request);
    // the excluded lists' versions stand for their members in the keys (Exclusion.toJSON)
    const filterKey = JSON.stringify([request.filters, context.excluded]);
    const pageKey = JSON.stringify([filterKey, request.sort, request.after, request.limit]);
    const index = this.index?.current(await this.currentVersion());
    if (index) return this.indexed.get(pageKey, () => this.searchIndex(index, request, context));
    let source: Promise<SearchSource> | null = null;
    const where = async (): Promise<[SearchSource, ReturnType<typeof filterSql>]> => {
      source ??= this.sourceFor(request.filters, request.sort);
      const s = await source;
      return [s, filterSql(request.filters, s, context)];
    };
    const [results, page] = await Promise.all([
      this.totals.get(filterKey, async () => countMatching(this.store, ...(await where()))),
      this.pages.get(pageKey, async () => {
        const [s, w] = await where();
        return toPage(
          await selectPage(this.store, s, w, request.sort, request.after, request.limit + 1),
          request.limit,
        );
      }),
    ]);
    return { results, ...page };
  }

  /**
   * The data version, checked at most once a second; at once after a replica's snapshot switch (the store's file
   * changed), so that the new snapshot's index, opened before the switch, answers from the first search after it.
   */
  private currentVersion(): Promise<string> {
    if (this.store.path !== this.versionPath) {
      this.versionPath = this.store.path;
      this.version.reset();
    }
    return this.version.get();
  }

  /** Drops cached totals and pages (call after writing creator data). */
  invalidate(): void {
    this.totals.clear();
    this.pages.clear();
    this.indexed.clear();
    this.version.reset();
  }

  /**
   * Whether searches are answered from the index (readiness): `off` when searching without one;
   * else as `SearchIndexHolder.readiness`, after waiting up to `waitMs` for a first build in progress.
   */
  async indexReadiness(waitMs: number): Promise<'off' | 'current' | 'first-build' | 'stale'> {
    if (!this.index) return 'off';
    const first = this.index.readiness(await this.currentVersion());
    if (first !== 'first-build') return first;
    await this.index.settled(waitMs);
    return this.index.readiness(await this.currentVersion());
  }

  /**
   * The index when it answers for the current data, after waiting up to `waitMs` for a build in progress;
   * null when searching without one or while it is (re)built (lookalikes then answer 503).
   */
  async currentIndex(waitMs: number): Promise<SearchIndex | null> {
    if (!this.index) return null;
    const now = this.index.current(await this.currentVersion());
    if (now || waitMs <= 0) return now;
    await this.index.settled(waitMs);
    return this.index.current(await this.currentVersion());
  }

  /** A search's context (its time and excluded lists) for filters checked by `checkFilterRules`. */
  async contextOf(filters: CreatorSearchFilters, accountId: string | null): Promise<SearchContext> {
    checkFilterRules(filters);
    return this.contextFor({ filters, sort: { key: 'followers', descending: true }, after: null, limit: 0, accountId });
  }

  /** Whether index files lie beside the store (a process then opens them at start, and is ready once it has). */
  hasIndexFiles(): boolean {
    return this.index !== null && hasIndexFiles(indexDirOf(this.store.path));
  }

  /** Builds the search index for the current data now (tools, the bench, tests); false when searching without one. */
  async buildIndex(): Promise<boolean> {
    if (!this.index) return false;
    await this.index.build();
    return true;
  }

  /** The total and the page, both from the index (no store read: the items are the index's data version too). */
  private async searchIndex(index: SearchIndex, request: SearchRequest, context: SearchContext): Promise<SearchResult> {
    const found = index.search(request.filters, request.sort, request.after, request.limit + 1, context);
    const page = found.rows.slice(0, request.limit);
    const last = page.at(-1);
    return {
      results: found.total,
      creators: page.map((r) => index.item(r.creator_id, r.position)!),
      next: found.rows.length > request.limit && last ? [last.sort_value, last.creator_id] : null,
    };
  }

  /** The request's time, and the members of the lists it excludes (a 400 naming exclude_list for a list not the caller's). */
  private async contextFor(request: SearchRequest): Promise<SearchContext> {
    const lists = request.filters.exclude_list;
    if (!lists) return searchContext(this.now());
    if (!this.exclusions) throw ValidationError.param('exclude_list', 'not available here');
    return searchContext(this.now(), await this.exclusions.resolve(request.accountId ?? null, lists));
  }

  /**
   * The projection when it is current and can answer these filters and this sort (it has no search_text,
   * content columns nor price), else `creators`.
   */
  private async sourceFor(filters: CreatorSearchFilters, sort: CreatorSort): Promise<SearchSource> {
    if (!this.projection || filters.q || needsCreatorsTable(filters) || !projectionSorts(sort)) return 'creators';
    return (await this.projection.isCurrent(await this.currentVersion())) ? 'projection' : 'creators';
  }
}

function toPage(rows: SearchPageRow[], limit: number): Page {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    creators: page.map(toCreatorItem),
    next: rows.length > limit && last ? [last.sort_value, last.creator_id] : null,
  };
}

/** Bounds that contradict each other, or a qualifier without what it qualifies. */
export function checkFilterRules(f: CreatorSearchFilters): void {
  const errors: FieldError[] = [];
  if (f.followers_min !== undefined && f.followers_max !== undefined && f.followers_min > f.followers_max) {
    errors.push({ param: 'followers_min', message: 'must be ≤ followers_max' });
  }
  if (f.engagement_min !== undefined && f.engagement_max !== undefined && f.engagement_min > f.engagement_max) {
    errors.push({ param: 'engagement_min', message: 'must be ≤ engagement_max' });
  }
  for (const base of [
    'audience_country',
    'audience_gender',
    'audience_age',
    'audience_language',
    'audience_interest',
  ] as const) {
    if (f[`${base}_min_pct`] !== undefined && f[base] === undefined)
      errors.push({ param: `${base}_min_pct`, message: `needs ${base}` });
  }
  if (errors.length > 0) {
    const detail = errors.map((e) => `${e.param} ${e.message}`).join('; ');
    throw new ValidationError(detail, errors);
  }
}
