import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { newId } from '../../data/ids.js';
import type { Store } from '../../data/store.js';
import type { PushResult, SyncBatch } from './destination.js';
import { errorMessage, WarehouseError } from './errors.js';
import { bindDestination, type BoundDestination, type DestinationConfig } from './registry.js';
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from './retry.js';
import { describeColumns, finishRun, highWatermark, insertRun, readWatermarks, recordTable } from './sync.queries.js';
import { batchQuery, SYNC_TABLE_NAMES, SYNC_TABLES, type SyncTableName } from './tables.js';

/** Progress of a sync, in the admin channel's shape; a returned promise holds the sync until it settles. */
export interface SyncProgressUpdate {
  step: string;
  done: number;
  total: number | null;
  unit?: string;
}

export interface SyncOptions {
  /** Parent of the run's scratch folder (CSV staging, partition staging). */
  workDir: string;
  /** Limits the run to these tables (of those the destination is configured for). */
  tables?: readonly SyncTableName[];
  retry?: RetryPolicy;
  progress?: (update: SyncProgressUpdate) => void | Promise<void>;
  onRetry?: (table: SyncTableName, error: WarehouseError, attempt: number, delayMs: number) => void;
  now?: () => Date;
}

export interface TableSyncResult {
  table: SyncTableName;
  rows_read: number;
  rows_loaded: number;
  rows_changed: number;
  watermark_from: string | null;
  watermark_to: string | null;
  attempts: number;
}

/** What a sync run did; the same facts are kept in `pipeline_runs` (kind `sync`). */
export interface SyncRunResult {
  run_id: string;
  destination: string;
  type: string;
  status: 'succeeded' | 'failed';
  tables: TableSyncResult[];
  rows_read: number;
  rows_loaded: number;
  rows_changed: number;
  seconds: number;
  error: string | null;
}

/** Another sync of the same destination is still running in this process. */
export class SyncBusyError extends Error {
  override name = 'SyncBusyError';
}

const running = new Set<string>();

/**
 * Runs one sync of a destination: each table in turn, from its last watermark
 * to the store's current high mark, pushed as one all-or-nothing batch with
 * transient failures retried. A table's watermark advances only after its
 * batch committed, so a failed run is finished by the next one. The run is
 * recorded either way; a failure is answered, not thrown.
 */
export async function runSync(
  store: Store,
  name: string,
  config: DestinationConfig,
  options: SyncOptions,
): Promise<SyncRunResult> {
  if (running.has(name)) throw new SyncBusyError(`a sync of ${name} is already running`);
  running.add(name);
  try {
    return await execute(store, name, config, options);
  } finally {
    running.delete(name);
  }
}

/** The tables a run covers: the destination's configured ones, narrowed by the caller. */
export function selectTables(config: DestinationConfig, only?: readonly SyncTableName[]): SyncTableName[] {
  const configured = config.tables ?? SYNC_TABLE_NAMES;
  return SYNC_TABLE_NAMES.filter((t) => configured.includes(t) && (!only || only.includes(t)));
}

async function execute(
  store: Store,
  name: string,
  config: DestinationConfig,
  options: SyncOptions,
): Promise<SyncRunResult> {
  const destination = bindDestination(config);
  const runId = newId('run');
  const started = Date.now();
  const result: SyncRunResult = {
    run_id: runId,
    destination: name,
    type: config.type,
    status: 'succeeded',
    tables: [],
    rows_read: 0,
    rows_loaded: 0,
    rows_changed: 0,
    seconds: 0,
    error: null,
  };
  await insertRun(store, runId, name, config.type);
  mkdirSync(options.workDir, { recursive: true });
  const scratch = mkdtempSync(join(options.workDir, `${runId}-`));
  let current: SyncTableName | null = null;
  try {
    const watermarks = await readWatermarks(store, name);
    for (const table of selectTables(config, options.tables)) {
      current = table;
      const done = await syncTable(store, destination, {
        name,
        runId,
        table,
        scratch,
        options,
        from: watermarks.get(table) ?? null,
      });
      result.tables.push(done);
      result.rows_read += done.rows_read;
      result.rows_loaded += done.rows_loaded;
      result.rows_changed += done.rows_changed;
    }
    await finishRun(store, runId, 'succeeded', null);
  } catch (error) {
    result.status = 'failed';
    result.error = describeFailure(error, current);
    await finishRun(store, runId, 'failed', result.error);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    result.seconds = (Date.now() - started) / 1000;
  }
  return result;
}

interface TableJob {
  name: string;
  runId: string;
  table: SyncTableName;
  scratch: string;
  options: SyncOptions;
  from: string | null;
}

async function syncTable(store: Store, destination: BoundDestination, job: TableJob): Promise<TableSyncResult> {
  const spec = SYNC_TABLES[job.table];
  const columns = await describeColumns(store, spec);
  const to = spec.cursor ? ((await highWatermark(store, spec)) ?? job.from) : null;
  const batch: SyncBatch = {
    runId: job.runId,
    destination: job.name,
    table: spec,
    columns,
    query: batchQuery(spec, columns, job.from, to),
    watermark: { from: job.from, to },
    runDate: (job.options.now?.() ?? new Date()).toISOString().slice(0, 10),
    workDir: join(job.scratch, job.table),
  };
  const progress = job.options.progress;
  const report = (done: number, total: number | null): void | Promise<void> =>
    progress?.({ step: `sync ${job.name} ${job.table}`, done, total, unit: 'rows' });
  let attempts = 0;
  const pushed: PushResult = await withRetry(
    () => {
      attempts++;
      rmSync(batch.workDir, { recursive: true, force: true });
      mkdirSync(batch.workDir, { recursive: true });
      return destination.push(store, batch, report);
    },
    (error) => destination.classify(error),
    job.options.retry ?? DEFAULT_RETRY,
    (error, attempt, delay) => job.options.onRetry?.(job.table, error, attempt, delay),
  );
  await recordTable(store, job.runId, job.name, job.table, to, pushed);
  return {
    table: job.table,
    rows_read: pushed.rowsRead,
    rows_loaded: pushed.rowsLoaded,
    rows_changed: pushed.rowsChanged,
    watermark_from: job.from,
    watermark_to: to,
    attempts,
  };
}

function describeFailure(error: unknown, table: SyncTableName | null): string {
  const where = table ? `${table}: ` : '';
  if (error instanceof WarehouseError) {
    return `${where}${error.transient ? 'gave up after retries' : 'stopped'}: ${error.message}`;
  }
  return `${where}${errorMessage(error)}`;
}
