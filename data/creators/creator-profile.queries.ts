import type { Store } from '../store.js';
import { postTagsSql } from '../derive/caption-parse.js';
import { RECENT_POSTS } from '../derive/creator-metrics.js';
import { BENCHMARK_METRICS, percentileSql } from '../derive/peer-benchmarks.js';
import { timestampSql } from '../timestamps.js';

/** Days of daily history a profile carries. */
export const PROFILE_HISTORY_DAYS = 365;
/** Trailing window the daily engagement rate of the history is computed over. */
const DAILY_ER_WINDOW_DAYS = 30;

export interface HandleMatch extends Record<string, unknown> {
  creator_id: number;
  platform: string;
}

/** Creators with this exact (normalised) handle, optionally on one platform. */
export async function findByHandle(store: Store, handle: string, platform: string | null): Promise<HandleMatch[]> {
  // The handle alone is the index lookup; a platform condition in the same WHERE makes DuckDB scan instead.
  const matches = await store.all<HandleMatch>(
    'SELECT creator_id, platform FROM creators WHERE handle = ? ORDER BY platform',
    [handle],
  );
  return platform === null ? matches : matches.filter((m) => m.platform === platform);
}

/** The creator's own row, timestamps as ISO strings. */
export function selectCreator(store: Store, creatorId: number): Promise<Record<string, unknown> | undefined> {
  // the content lists (creator_content) serve search; the profile reads its content from the posts themselves
  return store.one(
    `SELECT * EXCLUDE (updated_at, authenticity_checked_at, profile_as_of, audience_as_of, posts_as_of, search_text, last_posted_at),
      ${timestampSql('updated_at')} AS updated_at, ${timestampSql('authenticity_checked_at')} AS authenticity_checked_at,
      ${timestampSql('profile_as_of')} AS profile_as_of, ${timestampSql('audience_as_of')} AS audience_as_of,
      ${timestampSql('posts_as_of')} AS posts_as_of, ${timestampSql('last_posted_at')} AS last_posted_at
    FROM creators WHERE creator_id = ?::INTEGER`,
    [creatorId],
  );
}

export interface AudienceRow extends Record<string, unknown> {
  dimension: string;
  key: string;
  pct: number;
}

export function selectAudience(store: Store, creatorId: number): Promise<AudienceRow[]> {
  return store.all<AudienceRow>(
    `SELECT dimension, key, pct FROM audience WHERE creator_id = ?::INTEGER
    ORDER BY dimension, pct DESC, key`,
    [creatorId],
  );
}

export interface HistoryRow extends Record<string, unknown> {
  date: string;
  followers: number;
  engagement_rate: number | null;
}

/**
 * The last 365 days of follower counts, each day with the engagement rate of the
 * posts of the 30 days up to it (null when there were none).
 */
export function selectHistory(store: Store, creatorId: number): Promise<HistoryRow[]> {
  // a trailing window over per-day post totals (not a range join: that costs ~3x here)
  return store.all<HistoryRow>(
    `WITH h AS (SELECT date, followers FROM follower_history WHERE creator_id = $1::INTEGER),
    p AS (SELECT posted_at::DATE AS d, sum(likes + comments) AS e, count(*) AS n FROM posts WHERE creator_id = $1::INTEGER GROUP BY ALL),
    days AS (SELECT h.date, h.followers, coalesce(p.e, 0) AS e, coalesce(p.n, 0) AS n FROM h LEFT JOIN p ON p.d = h.date),
    w AS (SELECT date, followers, max(date) OVER () AS last, sum(e) OVER win AS e_sum, sum(n) OVER win AS n_sum
      FROM days WINDOW win AS (ORDER BY date RANGE BETWEEN INTERVAL ${DAILY_ER_WINDOW_DAYS - 1} DAY PRECEDING AND CURRENT ROW))
    SELECT strftime(date, '%Y-%m-%d') AS date, followers,
      CASE WHEN n_sum > 0 AND followers > 0 THEN round(e_sum / n_sum / followers * 100, 4) END AS engagement_rate
    FROM w WHERE date > last - ${PROFILE_HISTORY_DAYS} ORDER BY date`,
    [creatorId],
  );
}

export interface PostRow extends Record<string, unknown> {
  post_id: string;
  posted_at: string;
  type: string;
  likes: number;
  comments: number;
  views: number | null;
  shares: number | null;
  sponsored: boolean;
}

export function selectRecentPosts(store: Store, creatorId: number): Promise<PostRow[]> {
  return store.all<PostRow>(
    `SELECT post_id, ${timestampSql('posted_at')} AS posted_at, type, likes, comments, views, shares, sponsored
    FROM posts WHERE creator_id = ?::INTEGER
    -- QUALIFY, not LIMIT: a top-N here is rewritten into a rowid semi-join that scans every post
    QUALIFY row_number() OVER (ORDER BY posted_at DESC, post_id) <= ${RECENT_POSTS}
    ORDER BY posted_at DESC, post_id`,
    [creatorId],
  );
}

/** How many hashtags and mentions the profile's content block lists. */
export const PROFILE_TOP_TAGS = 10;

export interface ContentRow extends Record<string, unknown> {
  /** `hashtag`, `mention`, `brand` or `type`. */
  kind: 'hashtag' | 'mention' | 'brand' | 'type';
  key: string;
  posts: number;
  /** `type`: the average views of its posts with views (null when none has). */
  views: number | null;
  /** `brand`: its newest sponsored post. */
  last_posted_at: string | null;
}

/**
 * The content block's counts in one read of the creator's stored posts: its top
 * hashtags and mentions (posts carrying each, most first, ties by value), every
 * brand it posted sponsored content for (most sponsored posts first, ties by
 * brand) and the average views per post type.
 */
export function selectContent(store: Store, creatorId: number): Promise<ContentRow[]> {
  return store.all<ContentRow>(
    `WITH p AS (SELECT ${postTagsSql('hashtags')} AS hashtags, ${postTagsSql('mentions')} AS mentions, brand, sponsored, type, views, posted_at
      FROM posts WHERE creator_id = $1::INTEGER),
    tags AS (SELECT 'hashtag' AS kind, unnest(list_distinct(hashtags)) AS key FROM p
      UNION ALL SELECT 'mention' AS kind, unnest(list_distinct(mentions)) AS key FROM p),
    top AS (SELECT kind, key, count(*) AS posts FROM tags WHERE key IS NOT NULL GROUP BY kind, key
      QUALIFY row_number() OVER (PARTITION BY kind ORDER BY count(*) DESC, key) <= ${PROFILE_TOP_TAGS})
    SELECT kind, key, posts::INTEGER AS posts, NULL::DOUBLE AS views, NULL::VARCHAR AS last_posted_at FROM top
    UNION ALL SELECT 'brand', brand, count(*)::INTEGER, NULL, ${timestampSql('max(posted_at)')} FROM p
      WHERE sponsored AND brand IS NOT NULL GROUP BY brand
    UNION ALL SELECT 'type', type, count(*)::INTEGER, round(avg(views), 1), NULL FROM p GROUP BY type`,
    [creatorId],
  );
}

export interface LinkedAccountRow extends Record<string, unknown> {
  platform: string;
  handle: string;
}

/** The creator's accounts on other platforms, by platform then handle. */
export function selectLinkedAccounts(store: Store, creatorId: number): Promise<LinkedAccountRow[]> {
  return store.all<LinkedAccountRow>(
    `SELECT linked_platform AS platform, linked_handle AS handle FROM linked_accounts
    WHERE creator_id = ?::INTEGER ORDER BY platform, handle`,
    [creatorId],
  );
}

/** A peer group (docs/benchmarks.md): platform, niche and follower band, and how many creators it holds. */
export interface PeerGroup {
  platform: string;
  niche: string;
  followers_from: number;
  followers_to: number | null;
  creators: number;
}

/** A creator's percentile (0–100) in its peer group for each benchmarked metric, null without a value. */
export interface BenchmarkPercentiles {
  engagement_rate: number | null;
  growth_30d: number | null;
  avg_views: number | null;
  authenticity_score: number | null;
}

export interface BenchmarkRow extends PeerGroup, BenchmarkPercentiles, Record<string, unknown> {}

/**
 * The creator's peer group (docs/benchmarks.md) and its percentile in it for
 * each benchmarked metric, counted from the group's sorted values. None when no
 * group holds the creator yet (its derivation has not run).
 */
export async function selectBenchmarks(store: Store, creatorId: number): Promise<BenchmarkRow | undefined> {
  const own = await store.one<Record<string, unknown> & { platform: string; niche: string; followers: number }>(
    `SELECT platform, niche, followers, ${BENCHMARK_METRICS.map((m) => `${m.column} AS ${m.name}`).join(', ')}
    FROM creators WHERE creator_id = ?::INTEGER`,
    [creatorId],
  );
  if (!own) return undefined;
  // the group by bound values, not joined to the creator: a join reads every group's lists before it filters
  const percentiles = BENCHMARK_METRICS.map((m, i) => `${percentileSql(m.name, `$${i + 4}::DOUBLE`)} AS ${m.name}`);
  return store.one<BenchmarkRow>(
    `SELECT platform, niche, followers_from, followers_to, creators, ${percentiles.join(', ')}
    FROM peer_groups WHERE platform = $1 AND niche = $2 AND followers_from <= $3 AND (followers_to IS NULL OR $3 < followers_to)`,
    [own.platform, own.niche, own.followers, ...BENCHMARK_METRICS.map((m) => (own[m.name] ?? null) as number | null)],
  );
}

/** One post type's estimate of a creator (docs/pricing.md). */
export interface PriceEstimateRow extends Record<string, unknown> {
  post_type: string;
  low: number;
  mid: number;
  high: number;
  basis: string;
  observations: number;
  confidence: string;
  model_version: string;
}

/** The creator's price estimates, cheapest post type first; none before the first fit or for a creator added since. */
export async function selectPriceEstimates(store: Store, creatorId: number): Promise<PriceEstimateRow[]> {
  return store.all<PriceEstimateRow>(
    `SELECT post_type, low, mid, high, basis, observations, confidence, model_version
    FROM price_estimates WHERE creator_id = ?::INTEGER ORDER BY mid, post_type`,
    [creatorId],
  );
}
