import { quoteIdent } from '../../data/sql.js';
import type { Queryable, Store } from '../../data/store.js';
import { sourceRelation, type SyncColumn, type SyncTableSpec } from './tables.js';

/** The columns a table sends: everything the store has, less its internal ones. */
export async function describeColumns(store: Store, spec: SyncTableSpec): Promise<SyncColumn[]> {
  const rows = await store.all<{ column_name: string; column_type: string }>(
    `DESCRIBE SELECT * FROM ${sourceRelation(spec)}`,
  );
  return rows
    .filter((r) => !spec.exclude.includes(r.column_name))
    .map((r) => ({ name: r.column_name, type: r.column_type }));
}

/** The highest cursor value the table holds now (this run's watermark), as text. */
export async function highWatermark(store: Store, spec: SyncTableSpec): Promise<string | null> {
  if (!spec.cursor) return null;
  const row = await store.one<{ hi: string | null }>(
    `SELECT CAST(max(${quoteIdent(spec.cursor.column)}) AS VARCHAR) AS hi FROM ${quoteIdent(spec.name)}`,
  );
  return row?.hi ?? null;
}

export async function readWatermarks(store: Store, destination: string): Promise<Map<string, string | null>> {
  const rows = await store.all<{ table_name: string; watermark: string | null }>(
    'SELECT table_name, watermark FROM sync_state WHERE destination = ?',
    [destination],
  );
  return new Map(rows.map((r) => [r.table_name, r.watermark]));
}

export async function insertRun(store: Store, runId: string, destination: string, type: string): Promise<void> {
  await store.run(
    `INSERT INTO pipeline_runs (run_id, kind, pipeline, source, started_at, status)
     VALUES (?, 'sync', ?, ?, CAST(now() AS TIMESTAMP), 'running')`,
    [runId, destination, type],
  );
}

export interface TableCounts {
  rowsRead: number;
  rowsLoaded: number;
  rowsChanged: number;
}

/**
 * Records one pushed table: its watermark advances and the run's counters grow
 * in one transaction, so the state never claims rows the run did not count.
 */
export async function recordTable(
  store: Store,
  runId: string,
  destination: string,
  table: string,
  watermark: string | null,
  counts: TableCounts,
): Promise<void> {
  await store.transaction(async (tx) => {
    await upsertWatermark(tx, destination, table, watermark);
    await tx.run(
      `UPDATE pipeline_runs SET rows_read = rows_read + ?, rows_loaded = rows_loaded + ?, rows_changed = rows_changed + ?
       WHERE run_id = ?`,
      [counts.rowsRead, counts.rowsLoaded, counts.rowsChanged, runId],
    );
  });
}

async function upsertWatermark(
  tx: Queryable,
  destination: string,
  table: string,
  watermark: string | null,
): Promise<void> {
  await tx.run(
    `INSERT INTO sync_state (destination, table_name, watermark, updated_at) VALUES (?, ?, ?, CAST(now() AS TIMESTAMP))
     ON CONFLICT (destination, table_name) DO UPDATE SET watermark = excluded.watermark, updated_at = excluded.updated_at`,
    [destination, table, watermark],
  );
}

export async function finishRun(
  store: Store,
  runId: string,
  status: 'succeeded' | 'failed',
  error: string | null,
): Promise<void> {
  await store.run(
    `UPDATE pipeline_runs SET status = ?, error = ?, finished_at = CAST(now() AS TIMESTAMP) WHERE run_id = ?`,
    [status, error, runId],
  );
}

export type SyncRunRow = {
  run_id: string;
  pipeline: string;
  source: string | null;
  status: string;
  started_at: Date;
  finished_at: Date | null;
  rows_read: number;
  rows_loaded: number;
  rows_changed: number;
  error: string | null;
};

export async function listSyncRuns(store: Store, destination: string | null, limit: number): Promise<SyncRunRow[]> {
  return store.all<SyncRunRow>(
    `SELECT run_id, pipeline, source, status, started_at, finished_at, rows_read, rows_loaded, rows_changed, error
     FROM pipeline_runs WHERE kind = 'sync' AND (CAST(? AS VARCHAR) IS NULL OR pipeline = ?)
     ORDER BY started_at DESC, run_id DESC LIMIT ?`,
    [destination, destination, limit],
  );
}
