import type { Migration } from './migration.js';

/** The list columns that move from `creators` to `creator_content`. */
const LISTS = ['hashtags', 'mentions', 'brands', 'caption_words', 'linked_platforms'] as const;

/**
 * A creator's content lists (hashtags, mentions, brands, caption words, linked
 * platforms) move out of `creators` into `creator_content`, one row per creator
 * that has any (none: every list empty). DuckDB rewrites a whole row, index
 * entries included, to update one list column, which made re-deriving the lists
 * of a load's creators the largest part of a posts load (docs/search.md: what a
 * load derives); a narrow keyed table is replaced for the touched creators by
 * one DELETE and one INSERT instead. `fingerprint` hashes the lists, so the
 * search index tells a changed creator by one integer, not by hashing its lists
 * (data/derive/content-metrics.ts computes it the same way). The handle index is dropped and re-created
 * around the column drops (DuckDB refuses to alter a table with an index on it).
 */
export const creatorContent: Migration = {
  version: 102,
  name: 'creator content lists',
  statements: [
    `CREATE TABLE creator_content (
      creator_id INTEGER NOT NULL PRIMARY KEY,
      ${LISTS.map((l) => `${l} VARCHAR[] NOT NULL`).join(',\n      ')},
      fingerprint INTEGER NOT NULL
    )`,
    `INSERT INTO creator_content (creator_id, ${LISTS.join(', ')}, fingerprint)
      SELECT creator_id, ${LISTS.map((l) => `coalesce(${l}, [])`).join(', ')},
        (hash(${LISTS.map((l) => `coalesce(${l}, [])`).join(', ')}) % 2147483647)::INTEGER FROM creators
      WHERE ${LISTS.map((l) => `len(coalesce(${l}, [])) > 0`).join(' OR ')}`,
    'DROP INDEX creators_handle_idx',
    ...LISTS.map((l) => `ALTER TABLE creators DROP COLUMN ${l}`),
    'CREATE INDEX creators_handle_idx ON creators (handle)',
  ],
};
