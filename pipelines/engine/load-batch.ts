import { basename } from 'node:path';
import type { Queryable } from '../../data/store.js';
import type { EntitySpec } from '../entities/entity.js';
import { ENTITIES } from '../entities/source-entities.js';
import { FileUnreadableError } from './errors.js';
import { mergeChild } from './merge-children.js';
import { mergeCreators } from './merge-creators.js';
import type { Batch, LoadProgress } from './pipeline.js';
import { firstLine, READER_REJECTS, READER_SCANS, stageFile, type StagedFile, type StageOptions } from './stage.js';
import { checkBatch, quarantineBatch, typeBatch, type BatchContext } from './validate.js';

export interface BatchCounts {
  read: number;
  loaded: number;
  rejected: number;
  changed: number;
  /** Valid rows ignored because the stored row is newer. */
  stale: number;
  events: number;
  /** New creators whose derivation follows the commit (`finishPendingDerivations`); 0 when derived in the load. */
  deferred: number;
  /** Creators whose posts' tags and derivation follow the commit (`finishPendingPostDerivations`); 0 when done in the load. */
  deferredPosts: number;
  /** Creators whose follower sketch was rewritten, whose sketch slots are written after the commit. */
  sketchesChanged: number[];
  /** Run warnings the file gave (columns read past). */
  warnings: string[];
}

const TEMP_TABLES = [
  'stg_raw',
  'stg_typed',
  'stg_dups',
  'cr_upd',
  'touched_creators',
  'creators_before',
  'creators_after',
  'creator_changes',
  'aud_groups',
  'touched_campaigns',
  'stg_changed',
  'batch_creators',
  'pruned_creators',
  'campaign_totals_before',
  'campaign_totals_after',
  'campaign_changes',
  'fs_changed',
  READER_REJECTS,
  READER_SCANS,
];

/** A file read into the connection's temp tables, typed and checked: what `applyBatch` merges. */
export interface PreparedBatch {
  batch: Batch;
  rows: number;
  columns: ReadonlySet<string>;
  /** Columns of the file the entity does not have, read past. */
  ignored: readonly string[];
  /** Where its rows were read from (the quarantine reads the rejected ones' raw values there). */
  staged: StagedFile;
}

/**
 * Reads the file with DuckDB's own reader into `stg_raw`, and types and checks it
 * set-based into `stg_typed` — temp tables only, so it may run before the
 * transaction that applies them (it reads the creators the rows name, which only
 * serialised loads change). A run of one file does so: DuckDB reads rows written
 * inside an open transaction at about half speed, and the typing and merge read
 * every staged row. Nothing here loops over rows in JavaScript.
 */
export async function prepareBatch(
  c: Queryable,
  batch: Batch,
  progress?: (p: LoadProgress) => void,
  options: StageOptions = {},
): Promise<PreparedBatch> {
  const spec = ENTITIES[batch.entity];
  // Times without an offset read as UTC: Store.open sets the zone for every connection.
  const poll = await pollProgress(c, `reading ${batch.entity}`, progress);
  try {
    const staged = await stageFile(c, batch.file, batch.format, spec, options);
    poll.step(`validating ${batch.entity}`, staged.rows);
    await typeInPlaceOrCopy(c, spec, staged);
    await checkBatch(c, spec);
    return {
      batch,
      rows: staged.rows,
      columns: new Set(staged.columns.filter((c) => !staged.ignored.includes(c))),
      ignored: staged.ignored,
      staged,
    };
  } finally {
    await poll.stop();
  }
}

/**
 * Types the staged rows. A file read in place is first read whole here, so a file whose footer
 * read but whose data does not (a damaged page) fails as unreadable, as a copy would have.
 */
async function typeInPlaceOrCopy(c: Queryable, spec: EntitySpec, staged: StagedFile): Promise<void> {
  if (staged.relation === 'stg_raw') return typeBatch(c, spec, staged);
  try {
    await typeBatch(c, spec, staged);
  } catch (error) {
    // the process's limits are not the file's fault: those stay what they are
    if (/Out of Memory Error|Interrupted/i.test(firstLine(error))) throw error;
    throw new FileUnreadableError(`cannot read parquet file: ${firstLine(error)}`);
  }
}

/**
 * How a batch is applied: `deferDerivation` (a one-file run) lets a batch of purely new creators, or of posts,
 * derive after the commit;
 * `now` is the load's time (derivation, the posts kept), default the clock's.
 */
export interface ApplyContext extends BatchContext {
  deferDerivation?: boolean;
  now?: Date;
}

/**
 * Quarantines the failing rows of a prepared file and merges the rest, inside the
 * caller's transaction: merge, derivation and change events. The caller drops the
 * temp tables (`dropTempTables`) before the next file.
 */
export async function applyBatch(
  tx: Queryable,
  prepared: PreparedBatch,
  ctx: ApplyContext,
  progress?: (p: LoadProgress) => void,
): Promise<BatchCounts> {
  const { batch } = prepared;
  const spec = ENTITIES[batch.entity];
  const poll = await pollProgress(tx, `merging ${batch.entity}`, progress);
  try {
    const rejected = await quarantineBatch(tx, ctx, prepared.staged);
    poll.step(`merging ${batch.entity}`, prepared.rows);
    const now = ctx.now ?? new Date();
    const merged =
      batch.entity === 'creators'
        ? await mergeCreators(tx, prepared.columns, ctx.deferDerivation ? { deferNewRun: ctx.runId, now } : { now })
        : await mergeChild(tx, spec, prepared.columns, ctx.deferDerivation ? { now, deferRun: ctx.runId } : { now });
    return {
      read: prepared.rows,
      rejected,
      loaded: prepared.rows - rejected,
      changed: merged.changed,
      stale: merged.stale,
      events: merged.events,
      deferred: merged.deferred ?? 0,
      deferredPosts: merged.deferredPosts ?? 0,
      sketchesChanged: merged.sketchesChanged ?? [],
      warnings: ignoredWarning(prepared),
    };
  } finally {
    await poll.stop();
  }
}

/** The run warning for a file's unknown columns, none when it had none. */
function ignoredWarning({ batch, ignored }: PreparedBatch): string[] {
  if (ignored.length === 0) return [];
  return [
    `${basename(batch.file)}: unknown column(s) ${ignored.join(', ')} ignored (${batch.entity} has no such column; docs/data-formats.md)`,
  ];
}

/** Drops the staging and merge temp tables: between files, and after a failed run so a pooled connection does not keep them. */
export async function dropTempTables(tx: Queryable): Promise<void> {
  for (const t of TEMP_TABLES) await tx.run(`DROP TABLE IF EXISTS temp.main.${t}`);
}

/** A progress line for the running statement: its percentage beside the file's rows, never the statement's own row counts. */
export function statementProgress(step: string, fileRows: number | null, percentage: number): LoadProgress | null {
  const done = Math.min(Math.floor(percentage), 100);
  if (!(done > 0)) return null;
  const of = fileRows === null ? '' : ` (${fileRows.toLocaleString('en-US')} rows)`;
  return { step: `${step}${of}, statement at`, done, total: null, unit: '%' };
}

interface ProgressPoll {
  /** A new phase: reported at once with the batch's row count, then polled per statement. */
  step(name: string, rows: number): void;
  stop(): Promise<void>;
}

/**
 * Reports how far the running statement is (DuckDB's own estimate, from the
 * connection's query progress, which DuckDB only tracks while its progress bar is
 * enabled, never printed) as a percentage beside the file's row count: the rows
 * a statement reads include the stored tables it joins, so they are never shown
 * as the file's (a 4-row file read "51,252/246,660 rows").
 */
async function pollProgress(tx: Queryable, first: string, progress?: (p: LoadProgress) => void): Promise<ProgressPoll> {
  if (!progress) return { step: () => undefined, stop: async () => undefined };
  let current = first;
  let fileRows: number | null = null;
  await tx.run('SET enable_progress_bar = true');
  await tx.run('SET enable_progress_bar_print = false');
  const timer = setInterval(() => {
    try {
      const update = statementProgress(current, fileRows, Number(tx.connection.progress.percentage));
      if (update) progress(update);
    } catch {
      // progress is best effort; the load itself decides success
    }
  }, 250);
  return {
    step: (name, rows) => {
      current = name;
      fileRows = rows;
      progress({ step: name, done: rows, total: rows, unit: 'rows' });
    },
    stop: async () => {
      clearInterval(timer);
      await tx.run('RESET enable_progress_bar').catch(() => undefined);
    },
  };
}
