import { quoteIdent } from '../sql.js';
import type { Queryable, Store, SqlValue } from '../store.js';
import { CREATOR_ITEM_COLUMNS } from './creator-item.js';
import type { SortKey } from './creator-taxonomy.js';
import type { CreatorSearchFilters, CreatorSort } from './creator-search.types.js';
import { discoverySql, needsCreatorsTable } from './creator-search.discovery.js';
import { searchContext, type SearchContext } from './search-context.js';

export type { CreatorSearchFilters, CreatorSort } from './creator-search.types.js';

/** A WHERE clause over `creators` and its bound parameters. */
export interface SqlFragment {
  sql: string;
  params: SqlValue[];
}

/**
 * Where a search reads: the sorted projection (narrow, sorted by followers) or
 * the `creators` table itself (always current; the only one with search_text).
 */
export type SearchSource = 'projection' | 'creators';

const SOURCE_TABLE: Readonly<Record<SearchSource, string>> = {
  projection: 'creator_search_projection',
  creators: 'creators',
};

/** Column behind each sort key. */
const SORT_COLUMNS: Readonly<Record<SortKey, string>> = {
  followers: 'followers',
  engagement_rate: 'engagement_rate',
  growth_30d: 'growth_30d_pct',
  authenticity_score: 'authenticity_score',
  price: 'price_post_usd',
};
/** The sort keys the sorted projection holds a column for (it has no price: such a sort reads `creators`). */
const PROJECTED_SORT_KEYS: ReadonlySet<SortKey> = new Set([
  'followers',
  'engagement_rate',
  'growth_30d',
  'authenticity_score',
]);

/** Whether the sorted projection can order by this sort. */
export function projectionSorts(sort: CreatorSort): boolean {
  return PROJECTED_SORT_KEYS.has(sort.key);
}

/** Nullable sort columns sort NULL last in both directions, through a sentinel the keyset can compare (the search index uses it too). */
export const NULL_LAST = 1e308;

/** The sort expression: the column, with NULL mapped past the end of the order. */
export function sortExpression(sort: CreatorSort): string {
  const column = SORT_COLUMNS[sort.key];
  if (sort.key === 'followers') return column;
  return `coalesce(${column}, ${sort.descending ? -NULL_LAST : NULL_LAST})`;
}

/** `?, ?, ?` for a list and its values as separate parameters (so DuckDB can push the filter into the scan). */
function inList(values: readonly string[]): string {
  return values.map(() => '?').join(', ');
}

/**
 * The filters as one WHERE clause. Every value is bound; `context` holds the
 * request's time and the excluded lists' members (see SearchContext). `audience_country=US`
 * uses the precomputed `audience_us_pct` column; other countries a semi-join on
 * the audience table.
 */
export function filterSql(
  f: CreatorSearchFilters,
  source: SearchSource = 'creators',
  context: SearchContext = searchContext(Date.now()),
): SqlFragment {
  const where: string[] = [];
  const params: SqlValue[] = [];
  const add = (sql: string, ...values: SqlValue[]): void => {
    where.push(sql);
    params.push(...values);
  };
  if (f.platform) add(`platform IN (${inList(f.platform)})`, ...f.platform);
  if (f.niche) add(`niche IN (${inList(f.niche)})`, ...f.niche);
  if (f.country) add('country = ?', f.country);
  if (f.followers_min !== undefined) add('followers >= ?', f.followers_min);
  if (f.followers_max !== undefined) add('followers <= ?', f.followers_max);
  if (f.engagement_min !== undefined) add('engagement_rate >= ?::DOUBLE', f.engagement_min);
  if (f.engagement_max !== undefined) add('engagement_rate <= ?::DOUBLE', f.engagement_max);
  if (f.city) add(source === 'projection' ? 'city_lc = ?' : 'lower(city) = ?', f.city);
  if (f.language) add('language = ?', f.language);
  if (f.verified !== undefined) add('verified = ?', f.verified);
  if (f.growth_30d_min !== undefined) add('growth_30d_pct >= ?::DOUBLE', f.growth_30d_min);
  if (f.authenticity_min !== undefined) add('authenticity_score >= ?::DOUBLE', f.authenticity_min);
  if (f.price_max !== undefined) add('price_post_usd <= ?::DOUBLE', f.price_max);
  if (f.q && source === 'projection') throw new Error('text search reads creators, not the projection');
  for (const word of f.q ?? []) add('contains(search_text, ?)', word);
  if (f.audience_country) addAudience(f.audience_country, f.audience_country_min_pct, add);
  if (source === 'projection' && needsCreatorsTable(f))
    throw new Error('content filters read creators, not the projection');
  discoverySql(f, context, add);
  return { sql: where.length > 0 ? where.join(' AND ') : 'true', params };
}

function addAudience(country: string, minPct: number | undefined, add: (sql: string, ...v: SqlValue[]) => void): void {
  if (country === 'US') {
    if (minPct !== undefined) add('audience_us_pct >= ?::DOUBLE', minPct);
    else add('audience_us_pct > 0');
    return;
  }
  add(
    `creator_id IN (SELECT creator_id FROM audience WHERE dimension = 'country' AND key = ? AND pct >= ?::DOUBLE ${minPct === undefined ? 'AND pct > 0' : ''})`,
    country,
    minPct ?? 0,
  );
}

/** The keyset condition "after this (sort value, creator_id)" under `sort`; the tiebreak is ascending. */
export function keysetSql(sort: CreatorSort, after: readonly [number, number] | null): SqlFragment {
  if (!after) return { sql: 'true', params: [] };
  const expr = sortExpression(sort);
  const op = sort.descending ? '<' : '>';
  return {
    sql: `(${expr} ${op} ?::DOUBLE OR (${expr} = ?::DOUBLE AND creator_id > ?))`,
    params: [after[0], after[0], after[1]],
  };
}

export interface SearchPageRow extends Record<string, unknown> {
  creator_id: number;
  sort_value: number;
}

/**
 * One page (limit rows) of Creator item rows under the filters and sort, after
 * the keyset. On the projection, one query (it is narrow and sorted). On
 * `creators`, two steps: the top-N over narrow columns picks the ids, then only
 * those rows' item columns are read (a wide top-N costs ~3x at 1M rows).
 */
export async function selectPage(
  store: Store,
  source: SearchSource,
  filters: SqlFragment,
  sort: CreatorSort,
  after: readonly [number, number] | null,
  limit: number,
): Promise<SearchPageRow[]> {
  const keyset = keysetSql(sort, after);
  const expr = sortExpression(sort);
  const order = `ORDER BY ${expr} ${sort.descending ? 'DESC' : 'ASC'}, creator_id ASC LIMIT ${Math.trunc(limit)}`;
  if (source === 'projection') {
    if (!projectionSorts(sort)) throw new Error(`sort ${sort.key} reads creators, not the projection`);
    // the projection is narrow already: one step
    return store.all<SearchPageRow>(
      `SELECT creator_id, ${expr}::DOUBLE AS sort_value, ${CREATOR_ITEM_COLUMNS.join(', ')}
      FROM creator_search_projection WHERE ${filters.sql} AND ${keyset.sql} ${order}`,
      [...filters.params, ...keyset.params],
    );
  }
  const keys = await store.all<SearchPageRow>(
    `SELECT creator_id, ${expr}::DOUBLE AS sort_value
    FROM creators WHERE ${filters.sql} AND ${keyset.sql} ${order}`,
    [...filters.params, ...keyset.params],
  );
  return hydratePage(store, keys);
}

/**
 * The Creator item columns of a page's rows, picked by creator id (an index
 * scan), in the page's order. A row deleted since the page was chosen is
 * skipped rather than shown half-empty.
 */
async function hydratePage(
  store: Store,
  keys: ReadonlyArray<{ creator_id: number; sort_value: number }>,
): Promise<SearchPageRow[]> {
  if (keys.length === 0) return [];
  const ids = keys.map((k) => k.creator_id);
  const rows = await store.all(
    `SELECT creator_id, ${CREATOR_ITEM_COLUMNS.join(', ')} FROM creators
    WHERE creator_id IN (${ids.map(() => '?').join(', ')})`,
    ids,
  );
  const byId = new Map(rows.map((r) => [Number(r['creator_id']), r]));
  return keys.flatMap((k) => {
    const row = byId.get(k.creator_id);
    return row ? [{ ...row, creator_id: k.creator_id, sort_value: k.sort_value }] : [];
  });
}

/** How many creators match the filters. */
export async function countMatching(store: Store, source: SearchSource, filters: SqlFragment): Promise<number> {
  const row = await store.one<{ n: number }>(
    `SELECT count(*) AS n FROM ${quoteIdent(SOURCE_TABLE[source])} WHERE ${filters.sql}`,
    filters.params,
  );
  return row?.n ?? 0;
}

/**
 * A cheap fingerprint of the creator data: changes whenever creators are added
 * or updated, a pipeline run finishes, the authenticity model rescores, a
 * pricing model is fitted (its estimates are the `price_post_usd` search reads)
 * or creators loaded since the last fit are priced (after their load's commit).
 */
export async function dataVersion(store: Store | Queryable): Promise<string> {
  const row = await store.one<Record<string, unknown>>(`SELECT (SELECT count(*) FROM creators) AS n,
      (SELECT max(updated_at) FROM creators)::VARCHAR AS u,
      (SELECT max(authenticity_checked_at) FROM creators)::VARCHAR AS a,
      (SELECT count(*) || ' ' || coalesce(max(fitted_at)::VARCHAR, '') FROM pricing_models) AS p,
      (SELECT count(*) FROM price_estimates) AS e,
      (SELECT max(coalesce(finished_at, started_at)) FROM pipeline_runs)::VARCHAR AS r,
      (SELECT count(*) FROM pipeline_runs) AS rn`);
  return JSON.stringify(row ?? {});
}
