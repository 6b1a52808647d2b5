import type { StateDb, StateQueryable } from '../../data/state/state-db.js';

/** A claimed delivery with what is needed to send it. */
export interface ClaimedDelivery extends Record<string, unknown> {
  delivery_id: string;
  webhook_id: string;
  /** The attempt number this claim makes; also the fencing token when recording it. */
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  type: string;
  created_at: Date;
  payload: string;
}

/** One finished attempt, as recorded. */
export interface AttemptRecord {
  id: string;
  webhook_id: string;
  attempt: number;
  started: string;
  code: number | null;
  latency: number;
  err: string | null;
  /** The delivery's status after this attempt: succeeded, pending (a retry is due) or failed. */
  status: 'succeeded' | 'pending' | 'failed';
  next_at: string | null;
}

/** The batch of attempt records (bound as one JSON text) as a table `v`: DuckDB's from_json, PostgreSQL's json_to_recordset. */
function recordsTable(db: StateQueryable): string {
  return db.sql.jsonRecordset(
    '$records',
    [
      ['id', 'VARCHAR'],
      ['webhook_id', 'VARCHAR'],
      ['attempt', 'INTEGER'],
      ['started', 'TIMESTAMP'],
      ['code', 'INTEGER'],
      ['latency', 'DOUBLE'],
      ['err', 'VARCHAR'],
      ['status', 'VARCHAR'],
      ['next_at', 'TIMESTAMP'],
    ],
    'v',
  );
}

const DUE = `d.next_attempt_at <= $now::TIMESTAMP AND (d.status = 'pending' OR (d.status = 'sending' AND $expired))`;

/** Attempts whose lease ran out (the process died or hung mid-send) are logged as interrupted before reclaiming. */
export async function logInterrupted(db: StateQueryable, now: string): Promise<number> {
  return db.run(
    `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error)
    SELECT delivery_id, attempts, updated_at, NULL, NULL, 'interrupted: the worker stopped before the attempt finished'
    FROM deliveries d WHERE d.status = 'sending' AND d.next_attempt_at <= $now::TIMESTAMP AND d.attempts > 0
    ON CONFLICT DO NOTHING`,
    { now },
  );
}

/**
 * Leases due deliveries of enabled subscriptions in one statement: oldest due
 * first, at most `cap - held` per subscription (held = already claimed here and
 * not finished), so one backlogged endpoint cannot fill the batch. Saturated
 * subscriptions are left out before the oldest 4 × limit candidates are taken
 * (a top-N, not a sort of the whole backlog). Expired leases count as due only
 * when `expired` (right after they were logged as interrupted).
 * On PostgreSQL workers in other processes lease at the same time: candidates
 * one of them holds are skipped (SKIP LOCKED), and a candidate leased meanwhile
 * fails the DUE check again, so no attempt is ever leased twice.
 */
export async function leaseDue(
  db: StateQueryable,
  req: {
    now: string;
    leaseUntil: string;
    limit: number;
    cap: number;
    held: ReadonlyMap<string, number>;
    expired: boolean;
  },
): Promise<Array<{ delivery_id: string; webhook_id: string; event_id: string; attempts: number }>> {
  const saturated = [...req.held].filter(([, n]) => n >= req.cap).map(([id]) => id);
  const lock = db.sql.skipLocked('d');
  return db.all<{ delivery_id: string; webhook_id: string; event_id: string; attempts: number }>(
    `
    UPDATE deliveries d SET status = 'sending', attempts = d.attempts + 1,
      next_attempt_at = $lease_until::TIMESTAMP, updated_at = $now::TIMESTAMP
    FROM (
      WITH held AS (SELECT unnest($held_ids::VARCHAR[]) AS webhook_id, unnest($held_counts::FLOAT8[]) AS n),
      candidates AS (
        SELECT d.delivery_id, d.webhook_id, d.next_attempt_at
        FROM deliveries d JOIN webhook_subscriptions s ON s.webhook_id = d.webhook_id AND s.status = 'enabled'
        WHERE ${DUE} AND d.webhook_id NOT IN (SELECT unnest($saturated::VARCHAR[]))
        ORDER BY d.next_attempt_at, d.delivery_id LIMIT $candidates${lock}),
      due AS (
        SELECT *, row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at, delivery_id) AS rn FROM candidates)
      SELECT due.delivery_id FROM due LEFT JOIN held ON held.webhook_id = due.webhook_id
      WHERE due.rn <= $cap - coalesce(held.n, 0)
      ORDER BY due.next_attempt_at, due.delivery_id LIMIT $limit) p
    WHERE d.delivery_id = p.delivery_id AND ${DUE}
    RETURNING d.delivery_id, d.webhook_id, d.event_id, d.attempts`,
    {
      now: req.now,
      lease_until: req.leaseUntil,
      limit: req.limit,
      cap: req.cap,
      expired: req.expired,
      candidates: 4 * req.limit,
      held_ids: [...req.held.keys()],
      held_counts: [...req.held.values()],
      saturated,
    },
  );
}

/** The leased deliveries joined with what sending needs: their event and subscription. */
export async function loadForSending(
  db: StateQueryable,
  leased: ReadonlyArray<{ delivery_id: string; event_id: string; webhook_id: string; attempts: number }>,
): Promise<ClaimedDelivery[]> {
  return db.all<ClaimedDelivery>(
    `
    SELECT v.delivery_id, v.webhook_id, v.attempts::INTEGER AS attempts, s.url, s.secret, s.previous_secret,
           s.previous_secret_expires_at, s.failing_since, e.type, e.created_at, CAST(e.payload AS VARCHAR) AS payload
    FROM (SELECT unnest($ids::VARCHAR[]) AS delivery_id, unnest($events::VARCHAR[]) AS event_id,
                 unnest($webhooks::VARCHAR[]) AS webhook_id, unnest($attempts::FLOAT8[]) AS attempts) v
    JOIN events e ON e.event_id = v.event_id JOIN webhook_subscriptions s ON s.webhook_id = v.webhook_id`,
    {
      ids: leased.map((l) => l.delivery_id),
      events: leased.map((l) => l.event_id),
      webhooks: leased.map((l) => l.webhook_id),
      attempts: leased.map((l) => l.attempts),
    },
  );
}

/**
 * Writes a batch of finished attempts: the attempt log and each delivery's new state
 * (only if our claim is still the current one). Subscriptions' health is `updateHealth`'s.
 */
export async function recordAttempts(
  tx: StateQueryable,
  records: readonly AttemptRecord[],
  now: string,
): Promise<void> {
  const json = JSON.stringify(records);
  await tx.run(
    `INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error)
    SELECT id, attempt, started, code, latency, err FROM ${recordsTable(tx)} ON CONFLICT DO NOTHING`,
    { records: json },
  );
  await tx.run(
    `UPDATE deliveries d SET status = v.status, next_attempt_at = v.next_at, last_status_code = v.code,
      last_error = v.err, updated_at = $now::TIMESTAMP
    FROM ${recordsTable(tx)} WHERE d.delivery_id = v.id AND d.attempts = v.attempt AND d.status = 'sending'`,
    { records: json, now },
  );
}

/** Success clears a subscription's failing streak; a failure starts one if none is running. */
export async function updateHealth(
  tx: StateQueryable,
  succeeded: readonly string[],
  failed: readonly string[],
  now: string,
): Promise<void> {
  if (succeeded.length > 0) {
    await tx.run(
      `UPDATE webhook_subscriptions SET failing_since = NULL
      WHERE webhook_id IN (SELECT unnest($ids::VARCHAR[])) AND failing_since IS NOT NULL`,
      { ids: succeeded },
    );
  }
  if (failed.length > 0) {
    await tx.run(
      `UPDATE webhook_subscriptions SET failing_since = $now::TIMESTAMP
      WHERE webhook_id IN (SELECT unnest($ids::VARCHAR[])) AND failing_since IS NULL`,
      { ids: failed, now },
    );
  }
}

/** Disables subscriptions: those that answered 410, and those failing since before `failingBefore`. */
export async function disableSubscriptions(
  tx: StateQueryable,
  gone: readonly string[],
  failing: readonly string[],
  failingBefore: string,
  now: string,
): Promise<void> {
  if (gone.length > 0) {
    await tx.run(
      `UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = 'the receiver answered 410 Gone',
        updated_at = $now::TIMESTAMP
      WHERE webhook_id IN (SELECT unnest($ids::VARCHAR[])) AND status = 'enabled'`,
      { ids: gone, now },
    );
  }
  if (failing.length > 0) {
    await tx.run(
      `UPDATE webhook_subscriptions SET status = 'disabled',
        disabled_reason = 'every delivery failed for 5 days', updated_at = $now::TIMESTAMP
      WHERE webhook_id IN (SELECT unnest($ids::VARCHAR[])) AND status = 'enabled'
        AND failing_since <= $before::TIMESTAMP`,
      { ids: failing, before: failingBefore, now },
    );
  }
}

/** Hands back claimed deliveries not yet sent (a graceful stop), undoing their claim. */
export async function releaseClaims(
  state: StateDb,
  claims: ReadonlyArray<{ id: string; attempt: number }>,
  now: string,
): Promise<void> {
  if (claims.length === 0) return;
  await state.run(
    `UPDATE deliveries d SET status = 'pending', attempts = d.attempts - 1, next_attempt_at = $now::TIMESTAMP
    FROM (SELECT unnest($ids::VARCHAR[]) AS id, unnest($attempts::FLOAT8[]) AS attempt) v
    WHERE d.delivery_id = v.id AND d.attempts = v.attempt AND d.status = 'sending'`,
    { ids: claims.map((c) => c.id), attempts: claims.map((c) => c.attempt), now },
  );
}

/** Deletes events, deliveries and attempt logs older than `cutoff`; answers how many events went. */
export async function pruneBefore(state: StateDb, cutoff: string): Promise<number> {
  return state.transaction(async (tx) => {
    await tx.run(
      `DELETE FROM delivery_attempts WHERE started_at < $cutoff::TIMESTAMP OR delivery_id IN
      (SELECT d.delivery_id FROM deliveries d JOIN events e ON e.event_id = d.event_id WHERE e.created_at < $cutoff::TIMESTAMP)`,
      { cutoff },
    );
    await tx.run(
      `DELETE FROM deliveries WHERE event_id IN (SELECT event_id FROM events WHERE created_at < $cutoff::TIMESTAMP)`,
      { cutoff },
    );
    return tx.run(`DELETE FROM events WHERE created_at < $cutoff::TIMESTAMP AND fanned_out_at IS NOT NULL`, { cutoff });
  });
}
