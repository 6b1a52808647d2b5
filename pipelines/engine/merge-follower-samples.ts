import { rewriteSketches } from '../../data/audience-overlap/follower-sketch.queries.js';
import type { Queryable } from '../../data/store.js';
import { countRows, type MergeResult } from './merge-creators.js';

/** The creators of the batch whose sample differs from the stored one. */
const CHANGED_SAMPLES = 'SELECT creator_id FROM fs_changed';

/**
 * A creator's follower sample is a snapshot: a batch replaces the whole stored
 * sample of every creator it names with the batch's valid rows, and rewrites
 * those creators' sketches (docs/audience-overlap.md). A creator whose rows are
 * the ones stored is left alone, so loading an unchanged file changes nothing.
 * Samples feed no creator metric and send no event. Answers the rows written.
 */
export async function replaceFollowerSamples(tx: Queryable, now: Date): Promise<MergeResult> {
  await tx.run(`CREATE OR REPLACE TEMP TABLE fs_changed AS
    WITH f AS (SELECT creator_id, follower_id FROM stg_typed WHERE __err IS NULL),
      stored AS (SELECT creator_id, follower_id FROM follower_samples WHERE creator_id IN (SELECT creator_id FROM f))
    SELECT DISTINCT creator_id FROM ((SELECT * FROM f EXCEPT SELECT * FROM stored) UNION ALL (SELECT * FROM stored EXCEPT SELECT * FROM f))`);
  if ((await countRows(tx, 'fs_changed')) === 0) return { changed: 0, stale: 0, events: 0 };
  await tx.run(`DELETE FROM follower_samples WHERE creator_id IN (${CHANGED_SAMPLES})`);
  const changed = await tx.run(`INSERT INTO follower_samples (creator_id, follower_id)
    SELECT creator_id, follower_id FROM stg_typed WHERE __err IS NULL AND creator_id IN (${CHANGED_SAMPLES})
    ORDER BY creator_id`);
  await rewriteSketches(tx, CHANGED_SAMPLES, now);
  return { changed, stale: 0, events: 0 };
}
