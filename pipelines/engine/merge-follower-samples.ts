import { rewriteSketches } from '../../data/audience-overlap/follower-sketch.queries.js';
import { writeSketchSlots } from '../../data/audience-overlap/sketch-slots.js';
import type { Queryable } from '../../data/store.js';
import type { PipelineDeps } from './pipeline.js';
import { countRows, type MergeResult } from './merge-creators.js';

/** The creators of the batch whose sample differs from the stored one. */
const CHANGED_SAMPLES = 'SELECT creator_id FROM fs_changed';

/**
 * A creator's follower sample is a snapshot: a batch replaces the whole stored
 * sample of every creator it names with the batch's valid rows, and rewrites
 * those creators' sketches (docs/audience-overlap.md). A creator whose rows are
 * the ones stored is left alone, so loading an unchanged file changes nothing.
 * Samples feed no creator metric and send no event. Answers the rows written
 * and the creators whose sketch changed (their sketch slots are written after the commit).
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
  const sketched = await tx.all<{ creator_id: number }>(CHANGED_SAMPLES);
  return { changed, stale: 0, events: 0, sketchesChanged: sketched.map((r) => r.creator_id) };
}

/**
 * Copies the sketches a committed load rewrote to their slots beside the store, so the
 * first overlap request after the load reads slots, not the store's lists
 * (docs/audience-overlap.md, "The sketch slots"). A rolled-back load never gets here.
 * A failure leaves the load committed: it is logged, and a slot not written only
 * means that creator's next request reads the store and writes the slot.
 */
export async function writeSketchSlotsAfterCommit(
  deps: PipelineDeps,
  runId: string,
  creators: number[],
): Promise<void> {
  try {
    await writeSketchSlots(deps.store, creators);
  } catch (error) {
    deps.logger?.warn(
      { err: error, run: runId },
      `could not write the sketch slots of ${creators.length} creator(s) after run ${runId}`,
    );
  }
}
