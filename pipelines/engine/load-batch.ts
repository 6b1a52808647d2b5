import type { Queryable } from '../../data/store.js';
import { ENTITIES } from '../entities/source-entities.js';
import { mergeChild } from './merge-children.js';
import { mergeCreators } from './merge-creators.js';
import type { Batch, LoadProgress } from './pipeline.js';
import { stageFile } from './stage.js';
import { checkBatch, quarantineBatch, typeBatch, type BatchContext } from './validate.js';

export interface BatchCounts {
  read: number;
  loaded: number;
  rejected: number;
  changed: number;
  events: number;
}

const TEMP_TABLES = [
  'stg_raw', 'stg_typed', 'stg_dups', 'cr_upd', 'touched_creators', 'creators_before', 'creators_after', 'creator_changes', 'aud_groups',
  'touched_campaigns', 'stg_changed', 'batch_creators', 'campaign_totals_before', 'campaign_totals_after', 'campaign_changes',
];

/**
 * Loads one file inside the caller's transaction: stage with DuckDB's reader,
 * type and check set-based, quarantine the failing rows, merge the rest, derive,
 * and write the change events. Nothing here loops over rows in JavaScript.
 */
export async function loadBatch(tx: Queryable, batch: Batch, ctx: BatchContext, progress?: (p: LoadProgress) => void): Promise<BatchCounts> {
  const spec = ENTITIES[batch.entity];
  // Times without an offset are UTC, whatever the machine's zone.
  await tx.run(`SET TimeZone = 'UTC'`);
  const stopPolling = await pollProgress(tx, `reading ${batch.entity}`, progress);
  let staged;
  try {
    staged = await stageFile(tx, batch.file, batch.format, spec);
  } finally {
    await stopPolling();
  }
  progress?.({ step: `validating ${batch.entity}`, done: staged.rows, total: staged.rows, unit: 'rows' });
  await typeBatch(tx, spec, staged);
  await checkBatch(tx, spec);
  const rejected = await quarantineBatch(tx, ctx);
  progress?.({ step: `merging ${batch.entity}`, done: staged.rows, total: staged.rows, unit: 'rows' });
  const merged = batch.entity === 'creators' ? await mergeCreators(tx) : await mergeChild(tx, spec);
  for (const t of TEMP_TABLES) await tx.run(`DROP TABLE IF EXISTS temp.main.${t}`);
  return { read: staged.rows, rejected, loaded: staged.rows - rejected, changed: merged.changed, events: merged.events };
}

/**
 * While DuckDB reads a big file, reports the rows it has got through (DuckDB's
 * estimate) from the connection's query progress, which it only tracks while
 * its progress bar is enabled (not printed).
 */
async function pollProgress(tx: Queryable, step: string, progress?: (p: LoadProgress) => void): Promise<() => Promise<void>> {
  if (!progress) return async () => undefined;
  await tx.run('SET enable_progress_bar = true');
  await tx.run('SET enable_progress_bar_print = false');
  const timer = setInterval(() => {
    try {
      const p = tx.connection.progress;
      const done = Number(p.rows_processed);
      if (done > 0) progress({ step, done, total: Number(p.total_rows_to_process) || null, unit: 'rows' });
    } catch {
      // progress is best effort; the load itself decides success
    }
  }, 250);
  return async () => {
    clearInterval(timer);
    await tx.run('RESET enable_progress_bar');
  };
}
