import type { StateQueryable } from '../../data/state/state-db.js';
import { timestampSql } from '../../data/timestamps.js';

/** A delivery with its attempt log, as the mapper reads it. */
export interface DeliveryRow extends Record<string, unknown> {
  delivery_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  created_at_raw: string;
  log: Array<{
    attempt: number;
    started_at: string;
    status_code: number | null;
    latency_ms: number | null;
    error: string | null;
  }> | null;
}

type AttemptLog = NonNullable<DeliveryRow['log']>;

/** Each delivery's attempts as one list: DuckDB builds a list of structs, PostgreSQL a JSON array (parsed in `withLog`). */
function attemptLog(db: StateQueryable): string {
  const from = `FROM delivery_attempts a WHERE a.delivery_id = d.delivery_id`;
  const log = db.sql.objectList(
    [
      ['attempt', 'a.attempt'],
      ['started_at', timestampSql('a.started_at')],
      ['status_code', 'a.status_code'],
      ['latency_ms', 'a.latency_ms'],
      ['error', 'a.error'],
    ],
    'a.attempt',
  );
  return `(SELECT ${log} ${from})`;
}

function deliverySelect(db: StateQueryable): string {
  return `SELECT d.delivery_id, d.event_id, e.type AS event_type, d.status, d.attempts,
    ${timestampSql('d.next_attempt_at')} AS next_attempt_at, d.last_status_code, d.last_error,
    ${timestampSql('d.created_at')} AS created_at, CAST(d.created_at AS VARCHAR) AS created_at_raw,
    ${attemptLog(db)} AS log
  FROM deliveries d JOIN events e ON e.event_id = d.event_id`;
}

/** PostgreSQL answers the attempt log as JSON text; the mapper reads a list on both engines. */
function withLog(row: DeliveryRow): DeliveryRow {
  const log: unknown = row.log;
  return typeof log === 'string' ? { ...row, log: JSON.parse(log) as AttemptLog } : row;
}

/** One page of a subscription's deliveries, newest first, after the keyset (created_at, delivery_id). */
export async function selectDeliveries(
  db: StateQueryable,
  webhookId: string,
  opts: {
    after: { createdAt: string; id: string } | null;
    status: string | null;
    limit: number;
  },
): Promise<DeliveryRow[]> {
  const rows = await db.all<DeliveryRow>(
    `${deliverySelect(db)}
    WHERE d.webhook_id = $webhook AND ($status::VARCHAR IS NULL OR d.status = $status)
      AND ($after_at::VARCHAR IS NULL OR (d.created_at, d.delivery_id) < ($after_at::TIMESTAMP, $after_id::VARCHAR))
    ORDER BY d.created_at DESC, d.delivery_id DESC LIMIT $limit`,
    {
      webhook: webhookId,
      status: opts.status,
      after_at: opts.after?.createdAt ?? null,
      after_id: opts.after?.id ?? null,
      limit: opts.limit,
    },
  );
  return rows.map(withLog);
}

export async function selectDelivery(
  db: StateQueryable,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryRow | undefined> {
  const row = await db.one<DeliveryRow>(`${deliverySelect(db)} WHERE d.webhook_id = ? AND d.delivery_id = ?`, [
    webhookId,
    deliveryId,
  ]);
  return row && withLog(row);
}

/** Makes a finished delivery due again now (a replay); an attempt in flight is left alone. Answers rows changed. */
export function requeueDelivery(
  db: StateQueryable,
  webhookId: string,
  deliveryId: string,
  now: string,
): Promise<number> {
  return db.run(
    `UPDATE deliveries SET status = 'pending', next_attempt_at = $now::TIMESTAMP, updated_at = $now::TIMESTAMP
    WHERE webhook_id = $webhook AND delivery_id = $id AND status <> 'sending'`,
    { now, webhook: webhookId, id: deliveryId },
  );
}
