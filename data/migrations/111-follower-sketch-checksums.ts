import type { Migration } from './migration.js';

/**
 * A checksum of each stored sketch (docs/audience-overlap.md, "The sketch
 * slots"): the 53-bit hash of its hash list, written with the sketch
 * (data/audience-overlap/follower-sketch.queries.ts). An overlap request reads
 * the sketches from fixed slots in a file beside the store and trusts a slot
 * only when its sample size and checksum are the store's, which it reads from
 * these small columns without touching the lists. DuckDB refuses to alter a
 * table an index depends on, so the index is dropped here and made again by
 * migration 113, in a transaction of its own: dropping, altering and indexing
 * the table in one transaction crashed DuckDB 1.5 at its commit ("pure virtual
 * method called") on a store of a million creators.
 */
export const followerSketchChecksums: Migration = {
  version: 111,
  name: 'follower sketch checksums',
  statements: [
    'DROP INDEX follower_sketches_creator',
    'ALTER TABLE follower_sketches ADD COLUMN checksum BIGINT',
    'UPDATE follower_sketches SET checksum = (hash(hashes) >> 11)::BIGINT',
  ],
};
