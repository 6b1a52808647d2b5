import type { Queryable, Store } from '../../data/store.js';

type Db = Pick<Queryable, 'all' | 'one' | 'run'> | Store;

/** A row of the `exports` table as it comes back from DuckDB. */
export type ExportRow = {
  export_id: string;
  account_id: string;
  source: string;
  format: string;
  fields: string[] | null;
  status: string;
  progress: number;
  row_count: number | null;
  bytes: number | null;
  sha256: string | null;
  file_name: string | null;
  error: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  expires_at: Date | null;
};

const COLUMNS = `export_id, account_id, source::VARCHAR AS source, format, fields, status, progress, row_count, bytes, sha256,
  file_name, error, created_at, started_at, finished_at, expires_at`;

export async function insertExport(db: Db, row: {
  export_id: string; account_id: string; source: string; format: string; fields: string[] | null; row_count: number; created_at: Date;
}): Promise<void> {
  await db.run(`INSERT INTO exports (export_id, account_id, source, format, fields, status, progress, row_count, created_at)
    VALUES (?, ?, ?::JSON, ?, ?::VARCHAR[], 'queued', 0, ?, ?::TIMESTAMP)`,
  [row.export_id, row.account_id, row.source, row.format, row.fields, row.row_count, row.created_at.toISOString()]);
}

export async function findExport(db: Db, accountId: string, exportId: string): Promise<ExportRow | undefined> {
  return db.one<ExportRow>(`SELECT ${COLUMNS} FROM exports WHERE export_id = ? AND account_id = ?`, [exportId, accountId]);
}

/** One page of an account's exports, newest first, after the `before` id (ids sort by creation time). */
export async function listExports(db: Db, accountId: string, limit: number, before: string | null): Promise<ExportRow[]> {
  return db.all<ExportRow>(`SELECT ${COLUMNS} FROM exports WHERE account_id = ? AND (?::VARCHAR IS NULL OR export_id < ?)
    ORDER BY export_id DESC LIMIT ?`, [accountId, before, before, limit]);
}

/** Takes the oldest queued job and marks it running, in one statement. */
export async function claimNextQueued(db: Db, now: Date): Promise<ExportRow | undefined> {
  return db.one<ExportRow>(`UPDATE exports SET status = 'running', progress = 0, started_at = ?::TIMESTAMP
    WHERE export_id = (SELECT export_id FROM exports WHERE status = 'queued' ORDER BY created_at, export_id LIMIT 1)
      AND status = 'queued'
    RETURNING ${COLUMNS}`, [now.toISOString()]);
}

/** Marks one queued job running; undefined when someone else (the worker) took it first. */
export async function claimExport(db: Db, exportId: string, now: Date): Promise<ExportRow | undefined> {
  return db.one<ExportRow>(`UPDATE exports SET status = 'running', progress = 0, started_at = ?::TIMESTAMP
    WHERE export_id = ? AND status = 'queued' RETURNING ${COLUMNS}`, [now.toISOString(), exportId]);
}

export async function setProgress(db: Db, exportId: string, progress: number): Promise<void> {
  await db.run(`UPDATE exports SET progress = ? WHERE export_id = ? AND status = 'running'`, [progress, exportId]);
}

export async function markSucceeded(db: Db, exportId: string, done: {
  row_count: number; bytes: number; sha256: string; file_name: string; finished_at: Date; expires_at: Date;
}): Promise<void> {
  await db.run(`UPDATE exports SET status = 'succeeded', progress = 100, row_count = ?, bytes = ?, sha256 = ?, file_name = ?,
    error = NULL, finished_at = ?::TIMESTAMP, expires_at = ?::TIMESTAMP WHERE export_id = ?`,
  [done.row_count, done.bytes, done.sha256, done.file_name, done.finished_at.toISOString(), done.expires_at.toISOString(), exportId]);
}

export async function markFailed(db: Db, exportId: string, error: string, now: Date): Promise<void> {
  await db.run(`UPDATE exports SET status = 'failed', error = ?, finished_at = ?::TIMESTAMP WHERE export_id = ?`,
    [error, now.toISOString(), exportId]);
}

/** Puts a job back in the queue (a crash left it running). */
export async function requeue(db: Db, exportId: string): Promise<void> {
  await db.run(`UPDATE exports SET status = 'queued', progress = 0, started_at = NULL WHERE export_id = ?`, [exportId]);
}

/** Jobs a crashed process left running; answers their ids. */
export async function runningExports(db: Db): Promise<string[]> {
  return (await db.all<{ export_id: string }>(`SELECT export_id FROM exports WHERE status = 'running'`)).map((r) => r.export_id);
}

/** Succeeded jobs whose time to live has passed. */
export async function dueForExpiry(db: Db, now: Date): Promise<ExportRow[]> {
  return db.all<ExportRow>(`SELECT ${COLUMNS} FROM exports WHERE status = 'succeeded' AND expires_at <= ?::TIMESTAMP`, [now.toISOString()]);
}

export async function markExpired(db: Db, exportId: string): Promise<void> {
  await db.run(`UPDATE exports SET status = 'expired' WHERE export_id = ? AND status = 'succeeded'`, [exportId]);
}

/** Adds an event to the outbox (the webhook worker fans it out to the account's subscriptions). */
export async function insertEvent(db: Db, event: {
  event_id: string; type: string; account_id: string; payload: unknown; created_at: Date;
}): Promise<void> {
  await db.run(`INSERT INTO events (event_id, type, account_id, payload, created_at) VALUES (?, ?, ?, ?::JSON, ?::TIMESTAMP)`,
    [event.event_id, event.type, event.account_id, JSON.stringify(event.payload), event.created_at.toISOString()]);
}

export async function listOwned(db: Db, accountId: string, listId: string): Promise<boolean> {
  return (await db.one('SELECT 1 AS ok FROM lists WHERE list_id = ? AND account_id = ?', [listId, accountId])) !== undefined;
}

export async function campaignOwned(db: Db, accountId: string, campaignId: string): Promise<boolean> {
  return (await db.one('SELECT 1 AS ok FROM campaigns WHERE campaign_id = ? AND account_id = ?', [campaignId, accountId])) !== undefined;
}
