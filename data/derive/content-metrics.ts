import type { Queryable } from '../store.js';
import { scopeFilter, sqlTimestamp, type CreatorScope } from '../sql.js';
import { captionWordSetSql } from './caption-parse.js';

/** The window `posts_per_week` counts posts over. */
export const POSTS_PER_WEEK_DAYS = 90;

/**
 * The content columns of a creator with no posts, contacts or links (SQL values):
 * what a new creator is inserted with, so it reads as derived from the start.
 */
export const NO_CONTENT: Readonly<Record<string, string>> = {
  hashtags: '[]::VARCHAR[]', mentions: '[]::VARCHAR[]', brands: '[]::VARCHAR[]', caption_words: '[]::VARCHAR[]', sponsored_posts: '0',
  posts_per_week: '0', has_contact: 'false', linked_platforms: '[]::VARCHAR[]',
};

/**
 * The content columns of every creator in `scope`, from its stored posts,
 * contacts and linked accounts, in one set-based UPDATE (one rewrite of the
 * creators rows, not one per column):
 *
 * - `hashtags`, `mentions`: distinct values over the posts, most posts first, ties by value;
 * - `brands`: distinct `brand` of the sponsored posts, most sponsored posts first, ties by brand;
 * - `caption_words`: distinct words of every caption (caption-parse.ts), sorted;
 * - `sponsored_posts`, `sponsored_pct` (NULL without posts);
 * - `engagement_rate_sponsored` / `_organic`: mean (likes + comments) / followers × 100 of
 *   that kind's posts, rounded to 4 places, NULL without any (or without followers);
 * - `posts_per_week`: posts in the 90 days before `now`, per week, rounded to 2 places;
 * - `last_posted_at`, `reels_avg_views` (views of `reel` and `short` posts);
 * - `has_contact` (an e-mail or a website is known), `linked_platforms` (sorted, distinct).
 *
 * Lists are `[]`, never NULL, for a creator without any: consumers may read NULL
 * only for a creator not derived yet.
 */
export async function recomputeContentMetrics(db: Queryable, scope: CreatorScope, now: Date): Promise<void> {
  const inScope = scopeFilter(scope);
  // most posts first, ties by value: a histogram per creator, its entries sorted on (-count, value)
  const ranked = (list: string, where = 'true'): string => `SELECT creator_id,
      list_transform(list_sort(list_transform(map_entries(list_histogram(flatten(list(${list})))), e -> {'n': -e.value, 'v': e.key})), e -> e.v) AS vs
    FROM posts WHERE ${inScope} AND ${where} GROUP BY creator_id`;
  await db.run(`UPDATE creators c SET
      hashtags = coalesce(h.vs, []), mentions = coalesce(m.vs, []), brands = coalesce(b.vs, []), caption_words = coalesce(w.vs, []),
      sponsored_posts = coalesce(p.sponsored, 0),
      sponsored_pct = CASE WHEN p.n > 0 THEN round(p.sponsored * 100.0 / p.n, 2) END,
      engagement_rate_sponsored = CASE WHEN c.followers > 0 THEN round(p.er_sponsored / c.followers * 100, 4) END,
      engagement_rate_organic = CASE WHEN c.followers > 0 THEN round(p.er_organic / c.followers * 100, 4) END,
      posts_per_week = round(coalesce(p.recent, 0) / (${POSTS_PER_WEEK_DAYS} / 7.0), 2),
      last_posted_at = p.last_posted_at, reels_avg_views = p.reels_avg_views,
      has_contact = coalesce(k.has_contact, false), linked_platforms = coalesce(l.vs, [])
    FROM (SELECT creator_id FROM creators WHERE ${inScope}) s
      LEFT JOIN (
        SELECT creator_id, count(*) AS n, count_if(sponsored) AS sponsored,
          avg(likes + comments) FILTER (WHERE sponsored) AS er_sponsored, avg(likes + comments) FILTER (WHERE NOT sponsored) AS er_organic,
          count_if(posted_at >= $1::TIMESTAMP - INTERVAL ${POSTS_PER_WEEK_DAYS} DAY AND posted_at <= $1::TIMESTAMP) AS recent,
          max(posted_at) AS last_posted_at, avg(views) FILTER (WHERE type IN ('reel', 'short')) AS reels_avg_views
        FROM posts WHERE ${inScope} GROUP BY creator_id
      ) p USING (creator_id)
      LEFT JOIN (${ranked('hashtags')}) h USING (creator_id)
      LEFT JOIN (${ranked('mentions')}) m USING (creator_id)
      LEFT JOIN (${ranked('[brand]', 'sponsored AND brand IS NOT NULL')}) b USING (creator_id)
      LEFT JOIN (
        -- the words of all of a creator's captions at once: one pass of the expression per creator, not per post
        SELECT creator_id, ${captionWordSetSql("string_agg(caption, ' ')")} AS vs
        FROM posts WHERE ${inScope} AND caption IS NOT NULL GROUP BY creator_id
      ) w USING (creator_id)
      LEFT JOIN (
        SELECT creator_id, true AS has_contact FROM creator_contacts WHERE ${inScope} AND (email IS NOT NULL OR website IS NOT NULL)
      ) k USING (creator_id)
      LEFT JOIN (
        SELECT creator_id, list(DISTINCT linked_platform ORDER BY linked_platform) AS vs FROM linked_accounts WHERE ${inScope} GROUP BY creator_id
      ) l USING (creator_id)
    WHERE c.creator_id = s.creator_id`, [sqlTimestamp(now.getTime())]);
}
