import type { Migration } from './migration.js';

/**
 * The index on `follower_sketches.creator_id` that migration 111 dropped to add
 * the checksum column, made again in a transaction of its own (111 says why).
 * `IF NOT EXISTS`: a store that ran 111 while it still made the index again has it.
 */
export const followerSketchesIndex: Migration = {
  version: 113,
  name: 'follower sketches index',
  statements: ['CREATE INDEX IF NOT EXISTS follower_sketches_creator ON follower_sketches (creator_id)'],
};
