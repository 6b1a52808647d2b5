import type { StateQueryable } from '../state/state-db.js';

/** One counter cell: requests of one key to one operation in one minute with one status class. */
export interface UsageCell {
  account_id: string;
  /** The minute's start, ISO 8601 UTC. */
  minute: string;
  key_id: string;
  operation: string;
  status_class: string;
  requests: number;
  rate_limited: number;
}

export type Granularity = 'day' | 'hour';

/** Rows per INSERT: well under either engine's parameter limit (7 per row). */
const ROWS_PER_STATEMENT = 200;

/**
 * Adds cells to `api_usage`: inserted when new, added to when another flush (of
 * this or another process) already wrote the same cell. Callers pass cells in
 * key order, so two processes flushing at once lock rows in the same order.
 */
export async function addUsage(db: StateQueryable, cells: readonly UsageCell[]): Promise<void> {
  for (let i = 0; i < cells.length; i += ROWS_PER_STATEMENT) {
    const chunk = cells.slice(i, i + ROWS_PER_STATEMENT);
    const values = chunk.map(() => '(?, ?::TIMESTAMP, ?, ?, ?, ?, ?)').join(', ');
    const params = chunk.flatMap((c) => [
      c.account_id,
      c.minute,
      c.key_id,
      c.operation,
      c.status_class,
      c.requests,
      c.rate_limited,
    ]);
    await db.run(
      `INSERT INTO api_usage (account_id, minute, key_id, operation, status_class, requests, rate_limited)
      VALUES ${values}
      ON CONFLICT (account_id, minute, key_id, operation, status_class) DO UPDATE
        SET requests = api_usage.requests + EXCLUDED.requests, rate_limited = api_usage.rate_limited + EXCLUDED.rate_limited`,
      params,
    );
  }
}

/** Deletes usage older than `before` (retention); answers the rows deleted. */
export function purgeUsage(db: StateQueryable, before: Date): Promise<number> {
  return db.run('DELETE FROM api_usage WHERE minute < ?::TIMESTAMP', [before.toISOString()]);
}

interface Range {
  accountId: string;
  from: Date;
  to: Date;
  granularity: Granularity;
}

// the unit comes from the two-value Granularity type, never from a request's text
const trunc = (granularity: Granularity, column: string): string =>
  `date_trunc('${granularity === 'hour' ? 'hour' : 'day'}', ${column})`;

export interface BucketClassRow extends Record<string, unknown> {
  bucket: Date;
  status_class: string;
  requests: number;
  rate_limited: number;
  verify_calls: number;
  audience_overlaps: number;
}

/** The operations whose successful calls usage counts on their own (verify calls, audience overlaps). */
export interface MeteredOperations {
  verify: string;
  overlap: string;
}

/** Requests per bucket and status class, with rate-limit hits and successful verify and overlap calls. */
export function usageByBucket(db: StateQueryable, r: Range, metered: MeteredOperations): Promise<BucketClassRow[]> {
  return db.all<BucketClassRow>(
    `SELECT ${trunc(r.granularity, 'minute')} AS bucket, status_class,
      sum(requests)::FLOAT8 AS requests, sum(rate_limited)::FLOAT8 AS rate_limited,
      sum(CASE WHEN operation = ? AND status_class = '2xx' THEN requests ELSE 0 END)::FLOAT8 AS verify_calls,
      sum(CASE WHEN operation = ? AND status_class = '2xx' THEN requests ELSE 0 END)::FLOAT8 AS audience_overlaps
    FROM api_usage WHERE account_id = ? AND minute >= ?::TIMESTAMP AND minute < ?::TIMESTAMP
    GROUP BY 1, 2`,
    [metered.verify, metered.overlap, r.accountId, r.from.toISOString(), r.to.toISOString()],
  );
}

export interface KeyUsageRow extends Record<string, unknown> {
  key_id: string;
  name: string | null;
  requests: number;
  rate_limited: number;
}

/** Requests per key in the range, busiest first, with the key's name. */
export function usageByKey(db: StateQueryable, r: Range): Promise<KeyUsageRow[]> {
  return db.all<KeyUsageRow>(
    `SELECT u.key_id, max(k.name) AS name, sum(u.requests)::FLOAT8 AS requests, sum(u.rate_limited)::FLOAT8 AS rate_limited
    FROM api_usage u LEFT JOIN api_keys k ON k.key_id = u.key_id
    WHERE u.account_id = ? AND u.minute >= ?::TIMESTAMP AND u.minute < ?::TIMESTAMP
    GROUP BY u.key_id ORDER BY 3 DESC, 1`,
    [r.accountId, r.from.toISOString(), r.to.toISOString()],
  );
}

export interface OperationUsageRow extends Record<string, unknown> {
  operation: string;
  status_class: string;
  requests: number;
}

/** Requests per operation and status class in the range. */
export function usageByOperation(db: StateQueryable, r: Range): Promise<OperationUsageRow[]> {
  return db.all<OperationUsageRow>(
    `SELECT operation, status_class, sum(requests)::FLOAT8 AS requests
    FROM api_usage WHERE account_id = ? AND minute >= ?::TIMESTAMP AND minute < ?::TIMESTAMP
    GROUP BY 1, 2`,
    [r.accountId, r.from.toISOString(), r.to.toISOString()],
  );
}

export interface ExportUsageRow extends Record<string, unknown> {
  bucket: Date;
  export_rows: number;
  export_bytes: number;
}

/**
 * Rows and bytes of the account's exports that succeeded in the range, per
 * bucket, read from the export jobs themselves (kept after their files expire),
 * so the figure needs no counting of its own.
 */
export function exportsByBucket(db: StateQueryable, r: Range): Promise<ExportUsageRow[]> {
  return db.all<ExportUsageRow>(
    `SELECT ${trunc(r.granularity, 'finished_at')} AS bucket,
      sum(row_count)::FLOAT8 AS export_rows, sum(coalesce(bytes, 0))::FLOAT8 AS export_bytes
    FROM exports WHERE account_id = ? AND status IN ('succeeded', 'expired')
      AND finished_at >= ?::TIMESTAMP AND finished_at < ?::TIMESTAMP
    GROUP BY 1`,
    [r.accountId, r.from.toISOString(), r.to.toISOString()],
  );
}

export interface RevealUsageRow extends Record<string, unknown> {
  bucket: Date;
  contact_reveals: number;
}

/** The account's contact reveals per bucket, read from the reveals audit log itself (each reveal is one row there). */
export function revealsByBucket(db: StateQueryable, r: Range): Promise<RevealUsageRow[]> {
  return db.all<RevealUsageRow>(
    `SELECT ${trunc(r.granularity, 'revealed_at')} AS bucket, count(*)::FLOAT8 AS contact_reveals
    FROM contact_reveals WHERE account_id = ? AND revealed_at >= ?::TIMESTAMP AND revealed_at < ?::TIMESTAMP
    GROUP BY 1`,
    [r.accountId, r.from.toISOString(), r.to.toISOString()],
  );
}
