import type { Queryable } from '../queryable.js';
import { scopeFilter, type CreatorScope } from '../sql.js';

/** A peer group holds at least this many creators, unless its platform × niche has fewer in all (docs/benchmarks.md). */
export const MIN_PEER_GROUP = 300;

/**
 * The follower counts where the base bands start (1-2-5 steps, log-spaced); the
 * first band is [0, 1,000). Neighbouring base bands merge into peer groups
 * (`peerLayoutSql`).
 */
export const BASE_BAND_EDGES: readonly number[] = [
  1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6, 2e6, 5e6, 1e7, 2e7, 5e7, 1e8, 2e8, 5e8, 1e9,
];

/** The benchmarked metrics: the API's name and the `creators` column it reads. */
export const BENCHMARK_METRICS = [
  { name: 'engagement_rate', column: 'engagement_rate' },
  { name: 'growth_30d', column: 'growth_30d_pct' },
  { name: 'avg_views', column: 'avg_views' },
  { name: 'authenticity_score', column: 'authenticity_score' },
] as const;

/** The base band (0 … edges) of a follower count column: a CASE ladder over the fixed edges. */
export function baseBandSql(column: string): string {
  return `CASE ${BASE_BAND_EDGES.map((e, i) => `WHEN ${column} < ${e} THEN ${i}`).join(' ')} ELSE ${BASE_BAND_EDGES.length} END`;
}

/** The lower edge of base band `band` (a SQL integer expression). */
function bandFloorSql(band: string): string {
  return `[0, ${BASE_BAND_EDGES.join(', ')}][${band} + 1]`;
}

/**
 * The peer-group layout of the current creators, one row per non-empty base band:
 * (platform, niche, band, followers_from, followers_to, creators) — the group the
 * band belongs to and its size. Per platform × niche, base bands are walked from
 * the smallest and merged until the running group holds MIN_PEER_GROUP creators;
 * a short last group joins the one below it. Groups tile [0, ∞): the first starts
 * at 0, each ends where the next starts, the last has no end (null).
 */
export function peerLayoutSql(): string {
  return `WITH RECURSIVE
    base AS (SELECT platform, niche, ${baseBandSql('followers')} AS band, count(*) AS n FROM creators GROUP BY ALL),
    seq AS (SELECT *, row_number() OVER (PARTITION BY platform, niche ORDER BY band) AS i FROM base),
    walk(platform, niche, i, band, n, start_band, acc) AS (
      SELECT platform, niche, i, band, n, band, n FROM seq WHERE i = 1
      UNION ALL
      SELECT s.platform, s.niche, s.i, s.band, s.n,
        CASE WHEN w.acc >= ${MIN_PEER_GROUP} THEN s.band ELSE w.start_band END,
        CASE WHEN w.acc >= ${MIN_PEER_GROUP} THEN s.n ELSE w.acc + s.n END
      FROM walk w JOIN seq s ON s.platform = w.platform AND s.niche = w.niche AND s.i = w.i + 1
    ),
    last AS (SELECT platform, niche, arg_max(start_band, i) AS start_band, arg_max(acc, i) AS acc FROM walk GROUP BY ALL),
    merged AS (
      SELECT w.platform, w.niche, w.band, w.n,
        CASE WHEN w.start_band = l.start_band AND l.acc < ${MIN_PEER_GROUP}
          THEN coalesce((SELECT max(x.start_band) FROM walk x WHERE x.platform = w.platform AND x.niche = w.niche
            AND x.start_band < l.start_band), w.start_band)
          ELSE w.start_band END AS start_band
      FROM walk w JOIN last l USING (platform, niche)
    ),
    starts AS (SELECT DISTINCT platform, niche, start_band FROM merged),
    bounds AS (SELECT platform, niche, start_band,
        CASE WHEN start_band = min(start_band) OVER p THEN 0 ELSE ${bandFloorSql('start_band')} END AS followers_from,
        ${bandFloorSql('lead(start_band) OVER p')} AS followers_to
      FROM starts WINDOW p AS (PARTITION BY platform, niche ORDER BY start_band))
    SELECT m.platform, m.niche, m.band, b.followers_from::BIGINT AS followers_from, b.followers_to::BIGINT AS followers_to,
      sum(m.n) OVER (PARTITION BY m.platform, m.niche, m.start_band)::INTEGER AS creators
    FROM merged m JOIN bounds b USING (platform, niche, start_band)`;
}

/**
 * Refreshes `peer_groups` for the creators of `scope`, set-based: the layout is
 * recomputed from every creator's platform, niche and band (one narrow scan and
 * a count per base band); then only the groups that changed — a touched creator
 * is in it, or its bounds or size moved — get their sorted metric values again,
 * and groups no longer in the layout go. A group no touched creator is in keeps
 * its row: its members' values have not changed (docs/benchmarks.md says why
 * this is exact). Answers how many groups it rewrote.
 */
export async function refreshPeerBenchmarks(db: Queryable, scope: CreatorScope): Promise<number> {
  let rewritten = 0;
  for (const statement of peerBenchmarkStatements(scope)) {
    const n = await db.run(statement);
    if (statement.startsWith('INSERT')) rewritten = n;
  }
  return rewritten;
}

/** The statements of `refreshPeerBenchmarks`, in order (migration 103 runs them for 'all' to fill a store it finds with creators). */
export function peerBenchmarkStatements(scope: CreatorScope): string[] {
  const sameGroup = (a: string, b: string): string => `${a}.platform = ${b}.platform AND ${a}.niche = ${b}.niche
    AND ${a}.followers_from = ${b}.followers_from AND ${a}.followers_to IS NOT DISTINCT FROM ${b}.followers_to AND ${a}.creators = ${b}.creators`;
  const lists = BENCHMARK_METRICS.map(
    (m) => `coalesce(list(c.${m.column} ORDER BY c.${m.column}) FILTER (WHERE c.${m.column} IS NOT NULL), [])`,
  );
  return [
    `CREATE OR REPLACE TEMP TABLE peer_layout AS ${peerLayoutSql()}`,
    `CREATE OR REPLACE TEMP TABLE peer_touched AS
      SELECT DISTINCT platform, niche, ${baseBandSql('followers')} AS band FROM creators WHERE ${scope === 'all' ? 'true' : scopeFilter(scope)}`,
    `CREATE OR REPLACE TEMP TABLE peer_refresh AS
      SELECT DISTINCT l.platform, l.niche, l.followers_from, l.followers_to, l.creators FROM peer_layout l
      WHERE EXISTS (SELECT 1 FROM peer_touched t WHERE t.platform = l.platform AND t.niche = l.niche AND t.band = l.band)
        OR NOT EXISTS (SELECT 1 FROM peer_groups g WHERE ${sameGroup('g', 'l')})`,
    `DELETE FROM peer_groups g WHERE NOT EXISTS (SELECT 1 FROM peer_layout l WHERE ${sameGroup('g', 'l')})
      OR EXISTS (SELECT 1 FROM peer_refresh r WHERE ${sameGroup('g', 'r')})`,
    `INSERT INTO peer_groups (platform, niche, followers_from, followers_to, creators, ${BENCHMARK_METRICS.map((m) => m.name).join(', ')})
      SELECT r.platform, r.niche, r.followers_from, r.followers_to, r.creators, ${lists.join(', ')}
      FROM creators c
      JOIN peer_layout l ON l.platform = c.platform AND l.niche = c.niche AND l.band = ${baseBandSql('c.followers')}
      JOIN peer_refresh r ON r.platform = l.platform AND r.niche = l.niche AND r.followers_from = l.followers_from
      GROUP BY r.platform, r.niche, r.followers_from, r.followers_to, r.creators`,
    ...['peer_layout', 'peer_touched', 'peer_refresh'].map((t) => `DROP TABLE ${t}`),
  ];
}

/**
 * A creator's percentile among its peers for a metric, 0–100 with one decimal:
 * `percent_rank` × 100 (the share of the other peers with a value below its own;
 * ties share the lowest rank), over the peers with a value. A creator without a
 * value has none (NULL); one alone with a value is at 0. `list` is the group's
 * sorted values, `value` the creator's own.
 */
export function percentileSql(list: string, value: string): string {
  return `CASE WHEN ${value} IS NULL THEN NULL WHEN len(${list}) <= 1 THEN 0.0
    ELSE round(least(len(list_filter(${list}, v -> v < ${value}))::DOUBLE / (len(${list}) - 1)::DOUBLE, 1.0) * 100, 1) END`;
}
