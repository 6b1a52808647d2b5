import type { Migration } from './migration.js';

/**
 * Follower samples (docs/data-formats.md, `follower_samples`) and one sketch per
 * creator that has a sample (docs/audience-overlap.md): the KMV hashes of its
 * sampled follower ids, smallest first, at most `SKETCH_K` of them
 * (data/audience-overlap/follower-sketch.queries.ts), and the sample's size.
 * The load that changes a creator's sample rewrites its sketch in the same
 * transaction. No key constraints: the load deletes and re-inserts a creator's
 * rows in one transaction.
 */
export const followerSamples: Migration = {
  version: 107,
  name: 'follower samples',
  statements: [
    `CREATE TABLE follower_samples (
      creator_id INTEGER NOT NULL,
      follower_id VARCHAR NOT NULL
    )`,
    `CREATE TABLE follower_sketches (
      creator_id INTEGER NOT NULL,
      sample_size INTEGER NOT NULL,
      hashes BIGINT[] NOT NULL,
      updated_at TIMESTAMP NOT NULL
    )`,
    'CREATE INDEX follower_sketches_creator ON follower_sketches (creator_id)',
  ],
};
