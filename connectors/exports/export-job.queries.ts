import { retryOnWriteConflict, serialisedOn } from '../../core/keyed-queue.js';
import type { StateQueryable } from '../../data/state/state-db.js';
import type { Queryable, Store } from '../../data/store.js';

/** The service state (`exports`, `events`, `lists`, `list_members`): the embedded store or PostgreSQL. */
/** The analytical store (`campaigns`). */
type Analytical = Pick<Queryable, 'all' | 'one' | 'run'> | Store;

/** A row of the `exports` table as both engines answer it. */
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
  /** The claim that runs the job; every write the worker makes names it. */
  attempt_id: string | null;
};

/** A job as a worker holds it: the row it claimed, with its attempt. */
export type ClaimedExport = ExportRow & { attempt_id: string };

const COLUMNS = `export_id, account_id, source::VARCHAR AS source, format, fields, status, progress, row_count, bytes, sha256,
  file_name, error, created_at, started_at, finished_at, expires_at, attempt_id`;

export async function insertExport(
  db: StateQueryable,
  row: {
    export_id: string;
    account_id: string;
    source: string;
    format: string;
    fields: string[] | null;
    row_count: number;
    created_at: Date;
  },
): Promise<void> {
  await db.run(
    `INSERT INTO exports (export_id, account_id, source, format, fields, status, progress, row_count, created_at)
    VALUES (?, ?, ?::JSON, ?, ?::VARCHAR[], 'queued', 0, ?, ?::TIMESTAMP)`,
    [row.export_id, row.account_id, row.source, row.format, row.fields, row.row_count, row.created_at.toISOString()],
  );
}

export async function findExport(
  db: StateQueryable,
  accountId: string,
  exportId: string,
): Promise<ExportRow | undefined> {
  return db.one<ExportRow>(`SELECT ${COLUMNS} FROM exports WHERE export_id = ? AND account_id = ?`, [
    exportId,
    accountId,
  ]);
}

/** One page of an account's exports, newest first, after the `before` id (ids sort by creation time). */
export async function listExports(
  db: StateQueryable,
  accountId: string,
  limit: number,
  before: string | null,
): Promise<ExportRow[]> {
  return db.all<ExportRow>(
    `SELECT ${COLUMNS} FROM exports WHERE account_id = ? AND (?::VARCHAR IS NULL OR export_id < ?)
    ORDER BY export_id DESC LIMIT ?`,
    [accountId, before, before, limit],
  );
}

/** An account's exports that count against its plan: jobs queued or running, and bytes of files not yet expired. */
export async function accountExportUsage(
  db: StateQueryable,
  accountId: string,
  now: Date,
): Promise<{ in_flight: number; stored_bytes: number }> {
  const row = await db.one<{ in_flight: number | null; stored_bytes: number | null }>(
    `SELECT
      count(*) FILTER (WHERE status IN ('queued', 'running'))::INTEGER AS in_flight,
      sum(bytes) FILTER (WHERE status = 'succeeded' AND expires_at > ?::TIMESTAMP)::FLOAT8 AS stored_bytes
    FROM exports WHERE account_id = ?`,
    [now.toISOString(), accountId],
  );
  return { in_flight: row?.in_flight ?? 0, stored_bytes: row?.stored_bytes ?? 0 };
}

/** Who claims a job: a fresh attempt id, the time, and until when the claim holds unless renewed. */
export interface Claim {
  attemptId: string;
  now: Date;
  leaseUntil: Date;
}

/**
 * The order jobs are taken in, fair across accounts: first the account with the
 * fewest jobs running, then the one served longest ago (an account that never
 * started one first), then the oldest job. One account's burst therefore takes
 * turns with everyone else's jobs instead of making them wait for all of it.
 * `e` is the candidate job; `live` says which running jobs count (on
 * PostgreSQL, one whose lease ran out is claimable and not counted).
 */
function fairOrder(live: string): string {
  return `ORDER BY (SELECT count(*) FROM exports r WHERE r.account_id = e.account_id AND r.status = 'running' ${live}),
      (SELECT max(s.started_at) FROM exports s WHERE s.account_id = e.account_id) NULLS FIRST, e.created_at, e.export_id`;
}

/**
 * Takes the next claimable job (in `fairOrder`) and marks it running under
 * `claim`, in one statement. On PostgreSQL many workers claim at once: the row
 * is locked with SKIP LOCKED (two workers never take the same job), and a
 * running job whose lease ran out (its worker died) is claimable again. In the
 * embedded store one process runs every worker, and a job left running by a
 * crash is re-queued on start (`requeueInterrupted`).
 */
export async function claimNextQueued(db: StateQueryable, claim: Claim): Promise<ClaimedExport | undefined> {
  const now = claim.now.toISOString();
  const params = [now, claim.attemptId, claim.leaseUntil.toISOString()];
  if (db.sql.shared) {
    return db.one<ClaimedExport>(
      `UPDATE exports SET status = 'running', progress = 0, started_at = ?::TIMESTAMP, attempt_id = ?,
        lease_expires_at = ?::TIMESTAMP
      WHERE export_id = (SELECT e.export_id FROM exports e
        WHERE e.status = 'queued' OR (e.status = 'running' AND (e.lease_expires_at IS NULL OR e.lease_expires_at < ?::TIMESTAMP))
        ${fairOrder('AND r.lease_expires_at >= ?::TIMESTAMP')}${db.sql.skipLocked()} LIMIT 1)
      RETURNING ${COLUMNS}`,
      [...params, now, now],
    );
  }
  return claimOnce(() =>
    db.one<ClaimedExport>(
      `UPDATE exports SET status = 'running', progress = 0, started_at = ?::TIMESTAMP,
      attempt_id = ?, lease_expires_at = ?::TIMESTAMP
    WHERE export_id = (SELECT e.export_id FROM exports e WHERE e.status = 'queued' ${fairOrder('')} LIMIT 1)
      AND status = 'queued'
    RETURNING ${COLUMNS}`,
      params,
    ),
  );
}

/** Marks one queued job running; undefined when someone else (the worker) took it first. */
export async function claimExport(
  db: StateQueryable,
  exportId: string,
  claim: Claim,
): Promise<ClaimedExport | undefined> {
  return claimOnce(() =>
    db.one<ClaimedExport>(
      `UPDATE exports SET status = 'running', progress = 0, started_at = ?::TIMESTAMP,
      attempt_id = ?, lease_expires_at = ?::TIMESTAMP
    WHERE export_id = ? AND status = 'queued' RETURNING ${COLUMNS}`,
      [claim.now.toISOString(), claim.attemptId, claim.leaseUntil.toISOString(), exportId],
    ),
  );
}

/**
 * DuckDB refuses the second of two concurrent updates of one row ("Conflict on
 * update / tuple deletion") instead of waiting. One process owns the embedded
 * store, so its claims queue in-process; a conflict with another writer of the
 * row (a cancel, a clean-up) runs the claim again, which finds the next job or none.
 */
function claimOnce<T>(claim: () => Promise<T>): Promise<T> {
  return serialisedOn('exports:claim', () => retryOnWriteConflict(claim, 5));
}

/** A running job's attempt: the fence every worker write goes through. */
export type Attempt = Pick<ClaimedExport, 'export_id' | 'attempt_id'>;

const FENCE = `export_id = ? AND status = 'running' AND attempt_id = ?`;

/** Stores progress if the attempt still owns the job. */
export async function setProgress(db: StateQueryable, job: Attempt, progress: number): Promise<void> {
  await db.run(`UPDATE exports SET progress = ? WHERE ${FENCE}`, [progress, job.export_id, job.attempt_id]);
}

/** Extends the attempt's lease; false once the job is no longer the attempt's (its lease ran out and another took it). */
export async function renewLease(db: StateQueryable, job: Attempt, until: Date): Promise<boolean> {
  return (
    (await db.run(`UPDATE exports SET lease_expires_at = ?::TIMESTAMP WHERE ${FENCE}`, [
      until.toISOString(),
      job.export_id,
      job.attempt_id,
    ])) > 0
  );
}

/** Records success; false (and nothing written) when the attempt no longer owns the job. */
export async function markSucceeded(
  db: StateQueryable,
  job: Attempt,
  done: {
    row_count: number;
    bytes: number;
    sha256: string;
    file_name: string;
    finished_at: Date;
    expires_at: Date;
  },
): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE exports SET status = 'succeeded', progress = 100, row_count = ?, bytes = ?, sha256 = ?, file_name = ?,
    error = NULL, finished_at = ?::TIMESTAMP, expires_at = ?::TIMESTAMP, lease_expires_at = NULL WHERE ${FENCE}`,
      [
        done.row_count,
        done.bytes,
        done.sha256,
        done.file_name,
        done.finished_at.toISOString(),
        done.expires_at.toISOString(),
        job.export_id,
        job.attempt_id,
      ],
    )) > 0
  );
}

/** Records failure; false (and nothing written) when the attempt no longer owns the job. */
export async function markFailed(db: StateQueryable, job: Attempt, error: string, now: Date): Promise<boolean> {
  return (
    (await db.run(
      `UPDATE exports SET status = 'failed', error = ?, finished_at = ?::TIMESTAMP, lease_expires_at = NULL
    WHERE ${FENCE}`,
      [error, now.toISOString(), job.export_id, job.attempt_id],
    )) > 0
  );
}

/**
 * Puts interrupted jobs back in the queue and answers them. Embedded, one
 * process owns the store, so at its start every running job is a crash's
 * leftover; on PostgreSQL other workers are running theirs, so only jobs whose
 * lease ran out are taken back.
 */
export async function requeueInterrupted(
  db: StateQueryable,
  now: Date,
): Promise<Array<Pick<ExportRow, 'export_id' | 'format'>>> {
  const expired = db.sql.shared ? 'AND (lease_expires_at IS NULL OR lease_expires_at < ?::TIMESTAMP)' : '';
  return db.all<{ export_id: string; format: string }>(
    `UPDATE exports SET status = 'queued', progress = 0, started_at = NULL, attempt_id = NULL, lease_expires_at = NULL
    WHERE status = 'running' ${expired} RETURNING export_id, format`,
    db.sql.shared ? [now.toISOString()] : [],
  );
}

/** The attempts running now (their temporary files are theirs). */
export async function runningAttempts(db: StateQueryable): Promise<string[]> {
  const rows = await db.all<{ attempt_id: string | null }>(`SELECT attempt_id FROM exports WHERE status = 'running'`);
  return rows.flatMap((r) => (r.attempt_id ? [r.attempt_id] : []));
}

/** Succeeded jobs whose time to live has passed. */
export async function dueForExpiry(db: StateQueryable, now: Date): Promise<ExportRow[]> {
  return db.all<ExportRow>(`SELECT ${COLUMNS} FROM exports WHERE status = 'succeeded' AND expires_at <= ?::TIMESTAMP`, [
    now.toISOString(),
  ]);
}

export async function markExpired(db: StateQueryable, exportId: string): Promise<void> {
  await db.run(`UPDATE exports SET status = 'expired' WHERE export_id = ? AND status = 'succeeded'`, [exportId]);
}

/** Adds an event to the outbox (the webhook worker fans it out to the account's subscriptions). */
export async function insertEvent(
  db: StateQueryable,
  event: {
    event_id: string;
    type: string;
    account_id: string;
    payload: unknown;
    created_at: Date;
  },
): Promise<void> {
  await db.run(
    `INSERT INTO events (event_id, type, account_id, payload, created_at) VALUES (?, ?, ?, ?::JSON, ?::TIMESTAMP)`,
    [event.event_id, event.type, event.account_id, JSON.stringify(event.payload), event.created_at.toISOString()],
  );
}

export async function listOwned(db: StateQueryable, accountId: string, listId: string): Promise<boolean> {
  return (
    (await db.one('SELECT 1 AS ok FROM lists WHERE list_id = ? AND account_id = ?', [listId, accountId])) !== undefined
  );
}

/** A list's members, scoped to the account in the query itself, with when each was added (epoch microseconds, exact on both engines). */
export async function listMembers(
  db: StateQueryable,
  accountId: string,
  listId: string,
): Promise<Array<{ creator_id: number; added_us: number }>> {
  return db.all<{ creator_id: number; added_us: number }>(
    `SELECT creator_id, epoch_us(added_at) AS added_us FROM list_members
    WHERE list_id IN (SELECT list_id FROM lists WHERE list_id = ? AND account_id = ?)`,
    [listId, accountId],
  );
}

export async function campaignOwned(db: Analytical, accountId: string, campaignId: string): Promise<boolean> {
  return (
    (await db.one('SELECT 1 AS ok FROM campaigns WHERE campaign_id = ? AND account_id = ?', [
      campaignId,
      accountId,
    ])) !== undefined
  );
}
