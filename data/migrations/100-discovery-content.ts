import type { Migration } from './migration.js';

/**
 * Discovery (docs/search.md, docs/data-formats.md): posts carry their caption and
 * sponsoring brand, with the hashtags and mentions parsed from the caption once,
 * at load; creators' contacts and linked accounts are entities of their own; and
 * the per-creator content figures that search filters on, exports carry and
 * `creator.updated` reports are derived columns on `creators`, recomputed with
 * the other derived columns whenever a creator's posts, contacts or links change.
 *
 * Post types are now post | reel | short | video | story | live; the former
 * image, carousel and text are posts, stream is live (the loader still accepts
 * the old names and stores the new ones).
 *
 * Every added column has no default (migration.ts: DDL that replays safely).
 */
export const discoveryContent: Migration = {
  version: 100,
  name: 'discovery content',
  statements: [
    'ALTER TABLE posts ADD COLUMN caption VARCHAR',
    'ALTER TABLE posts ADD COLUMN brand VARCHAR',
    'ALTER TABLE posts ADD COLUMN hashtags VARCHAR[]',
    'ALTER TABLE posts ADD COLUMN mentions VARCHAR[]',
    `UPDATE posts SET type = CASE type WHEN 'image' THEN 'post' WHEN 'carousel' THEN 'post' WHEN 'text' THEN 'post'
      WHEN 'stream' THEN 'live' ELSE type END WHERE type IN ('image', 'carousel', 'text', 'stream')`,
    `CREATE TABLE creator_contacts (
      creator_id INTEGER NOT NULL PRIMARY KEY,
      email VARCHAR,
      website VARCHAR
    )`,
    `CREATE TABLE linked_accounts (
      creator_id INTEGER NOT NULL,
      linked_platform VARCHAR NOT NULL,
      linked_handle VARCHAR NOT NULL,
      PRIMARY KEY (creator_id, linked_platform, linked_handle)
    )`,
    // Distinct values over the creator's stored posts, most used first (ties by value).
    'ALTER TABLE creators ADD COLUMN hashtags VARCHAR[]',
    'ALTER TABLE creators ADD COLUMN mentions VARCHAR[]',
    'ALTER TABLE creators ADD COLUMN brands VARCHAR[]',
    // Distinct lower-cased caption words (runs of letters, digits and _), sorted: what `keywords` matches by prefix.
    'ALTER TABLE creators ADD COLUMN caption_words VARCHAR[]',
    'ALTER TABLE creators ADD COLUMN sponsored_posts INTEGER',
    'ALTER TABLE creators ADD COLUMN sponsored_pct DOUBLE',
    'ALTER TABLE creators ADD COLUMN engagement_rate_sponsored DOUBLE',
    'ALTER TABLE creators ADD COLUMN engagement_rate_organic DOUBLE',
    'ALTER TABLE creators ADD COLUMN posts_per_week DOUBLE',
    'ALTER TABLE creators ADD COLUMN last_posted_at TIMESTAMP',
    'ALTER TABLE creators ADD COLUMN reels_avg_views DOUBLE',
    'ALTER TABLE creators ADD COLUMN has_contact BOOLEAN',
    // Platforms of the creator's linked accounts, sorted, distinct.
    'ALTER TABLE creators ADD COLUMN linked_platforms VARCHAR[]',
  ],
};
