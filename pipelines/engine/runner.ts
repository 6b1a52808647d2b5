import { finishPendingDerivations } from '../../data/derive/pending-derivation.js';
import { newId } from '../../data/ids.js';
import { inTransaction, wrap } from '../../data/store.js';
import { sha256File } from './checksum.js';
import { FileUnreadableError } from './errors.js';
import { writeSketchSlotsAfterCommit } from './merge-follower-samples.js';
import { finishPendingPostDerivations } from './pending-posts.js';
import { applyBatch, dropTempTables, prepareBatch, type BatchCounts } from './load-batch.js';
import type {
  LoadProgress,
  PipelineDefinition,
  PipelineDeps,
  PipelineOutcome,
  PipelineSource,
  RunRecord,
  WorkUnit,
} from './pipeline.js';
import { claimPipeline, releasePipeline, serialiseLoad } from './run-lock.js';
import {
  failInterruptedRuns,
  ingestedBy,
  insertRun,
  readCursor,
  recordIngestedFile,
  writeCursor,
} from './run.queries.js';
import { firstLine } from './stage.js';

export interface RunOptions {
  /** Load from this source instead of the pipeline's own (the CLI's explicit files). */
  source?: PipelineSource;
  onProgress?: (p: LoadProgress) => void;
  /** Most units taken in one call, so a source that keeps producing cannot hold the loop forever. */
  maxUnits?: number;
}

/**
 * Runs a pipeline: takes its source's units one by one, each loaded in one
 * transaction with its cursor advance, change events and run record. The
 * scheduler, the CLI and the API all come through here. A second call while
 * one is in flight does not run (no overlap).
 */
export async function runPipeline(
  deps: PipelineDeps,
  pipeline: PipelineDefinition,
  options: RunOptions = {},
): Promise<PipelineOutcome> {
  if (!claimPipeline(deps.store, pipeline.name))
    return { pipeline: pipeline.name, skipped: 'already running', runs: [] };
  try {
    const source = options.source ?? pipeline.source(deps);
    const seen = new Set<string>();
    const runs: RunRecord[] = [];
    for (let i = 0; i < (options.maxUnits ?? 100); i++) {
      const cursor = await readCursor(deps.store, pipeline.name);
      let unit: WorkUnit | null;
      try {
        unit = await source.next({ ...deps, pipeline: pipeline.name, cursor, seen });
      } catch (error) {
        // The source itself failed (a remote API down past its retries): a failed run, cursor untouched.
        runs.push(
          await finish(
            deps,
            { source: source.kind, batches: [], dedupeByChecksum: false },
            {
              ...emptyRecord(pipeline.name, source.kind),
              status: 'failed',
              error: `source failed: ${firstLine(error)}`,
            },
          ),
        );
        break;
      }
      if (!unit) break;
      seen.add(unit.source);
      runs.push(await serialiseLoad(deps.store, () => runUnit(deps, pipeline.name, unit, options.onProgress)));
    }
    return { pipeline: pipeline.name, runs };
  } finally {
    releasePipeline(deps.store, pipeline.name);
  }
}

/**
 * Marks failed the runs a crashed process left `running`, in line with the loads
 * (so never a run that is starting now). The service calls it at start, so
 * `cds runs` shows the interrupted run at once; every load also does it first.
 */
export function recoverInterruptedRuns(store: PipelineDeps['store']): Promise<number> {
  return serialiseLoad(store, () => failInterruptedRuns(store));
}

/**
 * Finishes the derivation a crashed process left pending between a load's
 * commit and its derivation (new creators', and posts' tags with their creators'), in line with the loads (ahead of any started after
 * it). The service calls it at start, before serving and scheduling; every load also does it first.
 * Answers how many creators it derived.
 */
export function recoverPendingDerivations(store: PipelineDeps['store']): Promise<number> {
  return serialiseLoad(store, async () => {
    const creators = await finishPendingDerivations(store);
    return creators + (await finishPendingPostDerivations(store)).creators;
  });
}

function emptyRecord(pipeline: string, source: string): RunRecord {
  return {
    run_id: newId('run'),
    pipeline,
    source,
    status: 'succeeded',
    started_at: new Date().toISOString(),
    finished_at: null,
    rows_read: 0,
    rows_loaded: 0,
    rows_rejected: 0,
    rows_changed: 0,
    rows_stale: 0,
    events_emitted: 0,
    error: null,
    warnings: [],
  };
}

async function runUnit(
  deps: PipelineDeps,
  pipeline: string,
  unit: WorkUnit,
  onProgress?: (p: LoadProgress) => void,
): Promise<RunRecord> {
  const record = emptyRecord(pipeline, unit.source);
  let checksums: string[] = [];
  let deferred = 0;
  let deferredPosts = 0;
  const sketched: number[] = [];
  try {
    await failInterruptedRuns(deps.store);
    await finishPending(deps, 'before a load');
    if (unit.unchanged !== undefined)
      return await finish(deps, unit, { ...record, status: 'skipped', error: unit.unchanged });
    // The checksums are read (a second per gigabyte, off DuckDB's threads) while a one-file run stages its file.
    const hashing = unit.dedupeByChecksum ? Promise.all(unit.batches.map((b) => sha256File(b.file))) : null;
    hashing?.catch(() => undefined); // awaited below; a failure there fails the run
    // Committed on its own, so a crash mid-load still leaves a record that the next run marks failed.
    await insertRun(deps.store, { ...record, status: 'running' });
    const loadedBy = await deps.store.withConnection(async (connection) => {
      const c = wrap(connection);
      try {
        // One file is staged and checked before the transaction (temp tables only). Several files (a demo
        // tick) are each staged inside it, after the ones before: a later one names creators an earlier one adds.
        const [first] = unit.batches;
        // A Parquet file is read where it lies (it stays there until the run settles), not copied.
        const early =
          first && unit.batches.length === 1 ? await prepareBatch(c, first, onProgress, { inPlace: true }) : null;
        checksums = (await hashing) ?? [];
        const previous = await Promise.all(checksums.map((x) => ingestedBy(deps.store, pipeline, x)));
        if (checksums.length > 0 && previous.every((p) => p !== null)) {
          await dropTempTables(c);
          return previous[0] ?? null;
        }
        await inTransaction(c, async (tx) => {
          for (const [i, batch] of unit.batches.entries()) {
            const prepared = early ?? (await prepareBatch(tx, batch, onProgress, { inPlace: true }));
            const counts = await applyBatch(
              tx,
              prepared,
              {
                runId: record.run_id,
                pipeline,
                file: batch.label ?? batch.file,
                deferDerivation: early !== null,
                now: deps.now?.() ?? new Date(),
              },
              onProgress,
            );
            add(record, counts);
            deferred += counts.deferred;
            deferredPosts += counts.deferredPosts;
            for (const id of counts.sketchesChanged) sketched.push(id);
            await dropTempTables(tx);
            const checksum = checksums[i];
            if (checksum) await recordIngestedFile(tx, pipeline, checksum, batch.file, record.run_id);
          }
          if (unit.cursor !== undefined) await writeCursor(tx, pipeline, unit.cursor);
          record.finished_at = new Date().toISOString();
          await insertRun(tx, record);
        });
        return null;
      } catch (error) {
        // the rollback took what was made inside the transaction, not the staging made before it
        await dropTempTables(c).catch(() => undefined);
        throw error;
      }
    });
    // every file of the unit was loaded before: the run is recorded as skipped, over its `running` record
    if (loadedBy !== null)
      return await finish(deps, unit, { ...record, status: 'skipped', error: `already loaded by ${loadedBy}` });
  } catch (error) {
    // The transaction rolled back whole; the failure is recorded on its own, and the cursor stays where it was.
    const failed: RunRecord = {
      ...emptyRecord(pipeline, unit.source),
      run_id: record.run_id,
      started_at: record.started_at,
      status: 'failed',
      error: describeFailure(error),
    };
    deps.logger?.warn({ run: failed }, `pipeline ${pipeline} failed on ${unit.source}`);
    return finish(deps, unit, failed, error as Error);
  }
  deps.logger?.info({ run: record }, `pipeline ${pipeline} loaded ${unit.source}`);
  if (sketched.length > 0) await writeSketchSlotsAfterCommit(deps, record.run_id, sketched);
  if (deferred > 0) await deriveAfterCommit(deps, record, deferred, onProgress);
  if (deferredPosts > 0) await derivePostsAfterCommit(deps, record, deferredPosts, onProgress);
  await settle(deps, unit, 'succeeded');
  return record;
}

/** The progress step once the new creators' scores are committed (their features and peer statistics follow). */
export const SCORED_STEP = 'finishing derivation (authenticity features, peer statistics)';

/**
 * The derivation a load of purely new creators left to follow its commit, run at
 * once, still in the load queue: their scores commit first ('deriving creators'),
 * then their stored features (SCORED_STEP). Its failure does not undo the
 * committed load: the run says so in a warning, and the pending record is
 * finished before the next load or at the next start.
 */
async function deriveAfterCommit(
  deps: PipelineDeps,
  record: RunRecord,
  creators: number,
  onProgress?: (p: LoadProgress) => void,
): Promise<void> {
  onProgress?.({ step: 'deriving creators', done: creators, total: creators, unit: 'rows' });
  let scored = false;
  const failure = await finishPending(deps, `after run ${record.run_id}`, () => {
    scored = true;
    onProgress?.({ step: SCORED_STEP, done: creators, total: creators, unit: 'rows' });
  });
  if (failure === null) return;
  record.warnings.push(
    scored
      ? `the authenticity features of ${creators} new creator(s) are not stored yet (${failure}); their scores are. ` +
          'They are stored before the next load or at the next start'
      : `the scores and verdicts of ${creators} new creator(s) are not computed yet (${failure}); ` +
          'they are computed before the next load or at the next start',
  );
  await insertRun(deps.store, record).catch(() => undefined);
}

/** The progress step of the derivation that follows a posts load's commit. */
export const POSTS_DERIVATION_STEP = 'parsing tags, deriving creators';

/**
 * The derivation a one-file posts load left to follow its commit
 * (pending-posts.ts), run at once, still in the load queue: the posts' tags,
 * their creators' content and metrics, and the `creator.updated` events, which
 * the run's record then counts. Its failure does not undo the committed load:
 * the run says so in a warning, and the records are finished before the next
 * load or at the next start.
 */
async function derivePostsAfterCommit(
  deps: PipelineDeps,
  record: RunRecord,
  creators: number,
  onProgress?: (p: LoadProgress) => void,
): Promise<void> {
  onProgress?.({ step: POSTS_DERIVATION_STEP, done: creators, total: creators, unit: 'rows' });
  try {
    const done = await finishPendingPostDerivations(deps.store);
    if (done.runs.length > 0) record.events_emitted += done.events;
  } catch (error) {
    deps.logger?.warn({ err: error }, `could not derive posts after run ${record.run_id}`);
    record.warnings.push(
      `the hashtags, mentions and content figures of ${creators} creator(s) whose posts changed are not derived yet ` +
        `(${firstLine(error)}); they are derived before the next load or at the next start`,
    );
  }
  await insertRun(deps.store, record).catch(() => undefined);
}

/**
 * Finishes any pending derivation; answers null, or what went wrong (logged):
 * a derivation that cannot run now must not stop loads, and its record stays for the next try.
 */
async function finishPending(deps: PipelineDeps, when: string, onScored?: () => void): Promise<string | null> {
  try {
    const derived = await finishPendingDerivations(deps.store, { onScored });
    if (derived > 0) deps.logger?.info({ creators: derived }, `derived new creators ${when}`);
    const posts = await finishPendingPostDerivations(deps.store);
    if (posts.creators > 0) deps.logger?.info({ creators: posts.creators }, `derived posts' creators ${when}`);
    return null;
  } catch (error) {
    deps.logger?.warn({ err: error }, `could not derive new creators ${when}`);
    return firstLine(error);
  }
}

/** Settling (moving an inbox file) happens after the commit; its failure must not turn a committed run into a failed one. */
async function settle(deps: PipelineDeps, unit: WorkUnit, status: RunRecord['status'], error?: Error): Promise<void> {
  try {
    await unit.settle?.(status, error);
  } catch (settleError) {
    deps.logger?.warn({ err: settleError, source: unit.source }, 'could not settle a pipeline source');
  }
}

async function finish(deps: PipelineDeps, unit: WorkUnit, record: RunRecord, error?: Error): Promise<RunRecord> {
  const done = { ...record, finished_at: new Date().toISOString() };
  await insertRun(deps.store, done);
  await settle(deps, unit, done.status, error);
  return done;
}

function add(r: RunRecord, c: BatchCounts): void {
  r.rows_read += c.read;
  r.rows_loaded += c.loaded;
  r.rows_rejected += c.rejected;
  r.rows_changed += c.changed;
  r.rows_stale += c.stale;
  r.events_emitted += c.events;
  r.warnings.push(...c.warnings);
}

function describeFailure(error: unknown): string {
  if (error instanceof FileUnreadableError) return error.message;
  return `load failed: ${firstLine(error)}`;
}
