import type { Queryable } from '../store.js';
import { scopeFilter, type CreatorScope } from '../sql.js';
import { recomputeAuthenticity } from '../authenticity/precompute.js';
import { recomputeContentMetrics } from './content-metrics.js';
import { refreshPeerBenchmarks } from './peer-benchmarks.js';
import { priceNewCreators } from './pricing.js';

/** Posts that the averages and the engagement rate are computed over (the most recent ones). */
export const RECENT_POSTS = 12;

/**
 * A creator's search text (what `q` matches) from its profile columns: one
 * expression for the derivation and for the insert of new creators, which
 * computes it in place (an UPDATE of a million rows after the insert rewrites them).
 */
export function searchTextSql(): string {
  return `lower(handle || ' ' || coalesce(display_name, '') || ' ' || coalesce(bio, ''))`;
}

/**
 * Recomputes the derived creator columns that search filters and sorts on —
 * post averages and engagement rate, 7/30/90-day growth, audience US share,
 * search text, the content columns (hashtags, brands, sponsored share, posting
 * rate, contacts, linked platforms: content-metrics.ts) — for every creator in
 * `scope`, set-based; then the authenticity score, which reads the engagement
 * columns computed here; last the peer groups the scope's creators are in
 * (peer-benchmarks.ts), which read all of these. `now` is the derivation time
 * (what `posts_per_week` counts back from).
 */
export async function recomputeCreatorMetrics(
  db: Queryable,
  scope: CreatorScope,
  now: Date = new Date(),
): Promise<void> {
  await recomputePostMetrics(db, scope);
  await recomputeContentMetrics(db, scope, now);
  await recomputeGrowth(db, scope);
  await recomputeAudienceMetrics(db, scope);
  await db.run(`UPDATE creators SET search_text = ${searchTextSql()} WHERE ${scopeFilter(scope)}`);
  await recomputeAuthenticity(db, scope);
  await refreshPeerBenchmarks(db, scope);
  await priceNewCreators(db, scope);
}

async function recomputePostMetrics(db: Queryable, scope: CreatorScope): Promise<void> {
  await db.run(`UPDATE creators c SET
      avg_likes = p.avg_likes, avg_comments = p.avg_comments, avg_views = p.avg_views, posts_as_of = p.last_post,
      engagement_rate = CASE WHEN c.followers > 0 THEN round((p.avg_likes + p.avg_comments) / c.followers * 100, 4) END
    FROM (
      SELECT creator_id, round(avg(likes), 1) AS avg_likes, round(avg(comments), 1) AS avg_comments,
        round(avg(views), 1) AS avg_views, max(posted_at) AS last_post
      FROM (SELECT creator_id, likes, comments, views, posted_at,
              row_number() OVER (PARTITION BY creator_id ORDER BY posted_at DESC, post_id) AS rn
            FROM posts WHERE ${scopeFilter(scope)})
      WHERE rn <= ${RECENT_POSTS}
      GROUP BY creator_id
    ) p
    WHERE c.creator_id = p.creator_id`);
}

/**
 * Growth against each creator's own latest history day. Only the last ~97 days
 * of history are read (a quarter of the table), so a full recompute at 1M
 * creators scans ~100M rows, not 365M; a creator with no history in that
 * window has no growth figure.
 */
async function recomputeGrowth(db: Queryable, scope: CreatorScope): Promise<void> {
  await db.run(`UPDATE creators c SET
      followers_7d = c.followers - h.f7, followers_30d = c.followers - h.f30, followers_90d = c.followers - h.f90,
      growth_7d_pct = CASE WHEN h.f7 > 0 THEN round((c.followers - h.f7) * 100.0 / h.f7, 3) END,
      growth_30d_pct = CASE WHEN h.f30 > 0 THEN round((c.followers - h.f30) * 100.0 / h.f30, 3) END,
      growth_90d_pct = CASE WHEN h.f90 > 0 THEN round((c.followers - h.f90) * 100.0 / h.f90, 3) END
    FROM (
      WITH recent AS (
        SELECT creator_id, date, followers FROM follower_history
        WHERE date >= (SELECT max(date) FROM follower_history) - 97 AND ${scopeFilter(scope)}
      ), latest AS (
        SELECT creator_id, max(date) AS last_date FROM recent GROUP BY creator_id
      )
      SELECT r.creator_id,
        max(r.followers) FILTER (WHERE r.date = l.last_date - 7) AS f7,
        max(r.followers) FILTER (WHERE r.date = l.last_date - 30) AS f30,
        max(r.followers) FILTER (WHERE r.date = l.last_date - 90) AS f90
      FROM recent r JOIN latest l USING (creator_id)
      WHERE r.date IN (l.last_date - 7, l.last_date - 30, l.last_date - 90)
      GROUP BY r.creator_id
    ) h
    WHERE c.creator_id = h.creator_id`);
}

async function recomputeAudienceMetrics(db: Queryable, scope: CreatorScope): Promise<void> {
  await db.run(`UPDATE creators c SET audience_us_pct = a.us_pct, audience_as_of = a.as_of
    FROM (
      SELECT creator_id, coalesce(max(pct) FILTER (WHERE key = 'US'), 0) AS us_pct, max(as_of) AS as_of
      FROM audience WHERE dimension = 'country' AND ${scopeFilter(scope)}
      GROUP BY creator_id
    ) a
    WHERE c.creator_id = a.creator_id`);
}
