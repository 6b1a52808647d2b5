import type { Queryable } from '../store.js';
import { scopeFilter, sqlTimestamp, type CreatorScope } from '../sql.js';
import { captionWordSetSql } from './caption-parse.js';

/** The window `posts_per_week` counts posts over. */
export const POSTS_PER_WEEK_DAYS = 90;

/**
 * The scalar content columns of a creator with no posts, contacts or links (SQL
 * values): what a new creator is inserted with, so it reads as derived from the
 * start. Its lists are those of a creator without a `creator_content` row: empty.
 */
export const NO_CONTENT: Readonly<Record<string, string>> = {
  sponsored_posts: '0',
  posts_per_week: '0',
  has_contact: 'false',
};

/** The content lists, held in `creator_content` (one row per creator with any; none: all empty) with their `fingerprint`. */
export const CONTENT_LISTS = ['hashtags', 'mentions', 'brands', 'caption_words', 'linked_platforms'] as const;
export type ContentList = (typeof CONTENT_LISTS)[number];

/**
 * The content lists of creator `alias` as columns (an empty list where it has
 * none): a LEFT JOIN to append after `creators ${alias}`, and the select list
 * that reads them. `only` picks the lists to read.
 */
export function contentJoin(
  alias: string,
  only: readonly ContentList[] = CONTENT_LISTS,
): { join: string; columns: string } {
  const k = `${alias}_content`;
  return {
    join: `LEFT JOIN creator_content ${k} ON ${k}.creator_id = ${alias}.creator_id`,
    columns: only.map((l) => `coalesce(${k}.${l}, []::VARCHAR[]) AS ${l}`).join(', '),
  };
}

/**
 * The content of every creator in `scope`, from its stored posts, contacts and
 * linked accounts, set-based: the scalar columns of `creators` in one UPDATE,
 * and the lists by replacing the scope's `creator_content` rows (one DELETE, one
 * INSERT: DuckDB updates a list column by rewriting the whole row, many times
 * slower; migration 102).
 *
 * - `hashtags`, `mentions`: distinct values over the posts, most posts first, ties by value;
 * - `brands`: distinct `brand` of the sponsored posts, most sponsored posts first, ties by brand;
 * - `caption_words`: distinct words of every caption (caption-parse.ts), sorted;
 * - `linked_platforms`: sorted, distinct;
 * - `sponsored_posts`, `sponsored_pct` (NULL without posts);
 * - `engagement_rate_sponsored` / `_organic`: mean (likes + comments) / followers × 100 of
 *   that kind's posts, rounded to 4 places, NULL without any (or without followers);
 * - `posts_per_week`: posts in the 90 days before `now`, per week, rounded to 2 places;
 * - `last_posted_at`, `reels_avg_views` (views of `reel` and `short` posts);
 * - `has_contact` (an e-mail or a website is known).
 *
 * A creator whose lists are all empty has no `creator_content` row.
 */
export async function recomputeContentMetrics(db: Queryable, scope: CreatorScope, now: Date): Promise<void> {
  const inScope = scopeFilter(scope);
  await db.run(
    `UPDATE creators c SET
      sponsored_posts = coalesce(p.sponsored, 0),
      sponsored_pct = CASE WHEN p.n > 0 THEN round(p.sponsored * 100.0 / p.n, 2) END,
      engagement_rate_sponsored = CASE WHEN c.followers > 0 THEN round(p.er_sponsored / c.followers * 100, 4) END,
      engagement_rate_organic = CASE WHEN c.followers > 0 THEN round(p.er_organic / c.followers * 100, 4) END,
      posts_per_week = round(coalesce(p.recent, 0) / (${POSTS_PER_WEEK_DAYS} / 7.0), 2),
      last_posted_at = p.last_posted_at, reels_avg_views = p.reels_avg_views,
      has_contact = coalesce(k.has_contact, false)
    FROM (SELECT creator_id FROM creators WHERE ${inScope}) s
      LEFT JOIN (
        SELECT creator_id, count(*) AS n, count_if(sponsored) AS sponsored,
          avg(likes + comments) FILTER (WHERE sponsored) AS er_sponsored, avg(likes + comments) FILTER (WHERE NOT sponsored) AS er_organic,
          count_if(posted_at >= $1::TIMESTAMP - INTERVAL ${POSTS_PER_WEEK_DAYS} DAY AND posted_at <= $1::TIMESTAMP) AS recent,
          max(posted_at) AS last_posted_at, avg(views) FILTER (WHERE type IN ('reel', 'short')) AS reels_avg_views
        FROM posts WHERE ${inScope} GROUP BY creator_id
      ) p USING (creator_id)
      LEFT JOIN (
        SELECT creator_id, true AS has_contact FROM creator_contacts WHERE ${inScope} AND (email IS NOT NULL OR website IS NOT NULL)
      ) k USING (creator_id)
    WHERE c.creator_id = s.creator_id`,
    [sqlTimestamp(now.getTime())],
  );
  await replaceContentLists(db, scope);
}

/** Replaces the `creator_content` rows of the creators in `scope` with lists derived from their stored rows. */
async function replaceContentLists(db: Queryable, scope: CreatorScope): Promise<void> {
  const inScope = scopeFilter(scope);
  // most posts first, ties by value: a histogram per creator, its entries sorted on (-count, value)
  const ranked = (list: string, where = 'true'): string => `SELECT creator_id,
      list_transform(list_sort(list_transform(map_entries(list_histogram(flatten(list(${list})))), e -> {'n': -e.value, 'v': e.key})), e -> e.v) AS vs
    FROM posts WHERE ${inScope} AND ${where} GROUP BY creator_id`;
  await db.run(scope === 'all' ? 'DELETE FROM creator_content' : `DELETE FROM creator_content WHERE ${inScope}`);
  await db.run(`INSERT INTO creator_content (creator_id, ${CONTENT_LISTS.join(', ')}, fingerprint)
    SELECT *, ${contentFingerprintSql()} FROM (SELECT creator_id, ${CONTENT_LISTS.map((l) => `coalesce(${l}.vs, []) AS ${l}`).join(', ')}
    FROM (SELECT creator_id FROM creators WHERE ${inScope}) s
      LEFT JOIN (${ranked('hashtags')}) hashtags USING (creator_id)
      LEFT JOIN (${ranked('mentions')}) mentions USING (creator_id)
      LEFT JOIN (${ranked('[brand]', 'sponsored AND brand IS NOT NULL')}) brands USING (creator_id)
      LEFT JOIN (
        -- the words of all of a creator's captions at once: one pass of the expression per creator, not per post
        SELECT creator_id, ${captionWordSetSql("string_agg(caption, ' ')")} AS vs
        FROM posts WHERE ${inScope} AND caption IS NOT NULL GROUP BY creator_id
      ) caption_words USING (creator_id)
      LEFT JOIN (
        SELECT creator_id, list(DISTINCT linked_platform ORDER BY linked_platform) AS vs FROM linked_accounts WHERE ${inScope} GROUP BY creator_id
      ) linked_platforms USING (creator_id)
    WHERE ${CONTENT_LISTS.map((l) => `len(coalesce(${l}.vs, [])) > 0`).join(' OR ')})`);
}

/** A content row's fingerprint (31 bits) from its lists, as migration 102 computed it: what the search index compares. */
export function contentFingerprintSql(): string {
  return `(hash(${CONTENT_LISTS.join(', ')}) % 2147483647)::INTEGER`;
}
