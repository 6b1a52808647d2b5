import type { Queryable, Store } from '../../data/store.js';

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

const RECORDS = `(SELECT unnest(from_json($records::JSON,
  '[{"id":"VARCHAR","webhook_id":"VARCHAR","attempt":"INTEGER","started":"TIMESTAMP","code":"INTEGER","latency":"DOUBLE","err":"VARCHAR","status":"VARCHAR","next_at":"TIMESTAMP"}]'),
  recursive := true))`;

const DUE = `d.next_attempt_at <= $now::TIMESTAMP AND (d.status = 'pending' OR (d.status = 'sending' AND $expired))`;

/** Attempts whose lease ran out (the process died or hung mid-send) are logged as interrupted before reclaiming. */
export async function logInterrupted(db: Pick<Queryable, 'run'>, now: string): Promise<number> {
  return db.run(`INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error)
    SELECT delivery_id, attempts, updated_at, NULL, NULL, 'interrupted: the worker stopped before the attempt finished'
    FROM deliveries d WHERE d.status = 'sending' AND d.next_attempt_at <= $now::TIMESTAMP AND d.attempts > 0
    ON CONFLICT DO NOTHING`, { now });
}

/**
 * Subscriptions (enabled) with due deliveries: how many, oldest first. Expired
 * leases count as due only when `expired` (right after they were logged as interrupted).
 */
export async function dueBySubscription(
  db: Pick<Queryable, 'all'>, now: string, max: number, expired: boolean,
): Promise<Array<{ webhook_id: string; n: number }>> {
  return db.all(`SELECT d.webhook_id, count(*) AS n FROM deliveries d
    JOIN webhook_subscriptions s ON s.webhook_id = d.webhook_id AND s.status = 'enabled'
    WHERE ${DUE} GROUP BY d.webhook_id ORDER BY min(d.next_attempt_at) LIMIT $max`, { now, max, expired });
}

/**
 * Leases the oldest due deliveries of each given subscription, at most its
 * allowance each, in one statement; a replay or another claim in between is not overwritten.
 */
export async function leaseDue(
  db: Pick<Queryable, 'all'>, allowances: ReadonlyArray<{ webhook_id: string; n: number }>, now: string, leaseUntil: string,
  expired: boolean,
): Promise<Array<{ delivery_id: string; webhook_id: string; event_id: string; attempts: number }>> {
  const params: Record<string, string | number | boolean> = { now, lease_until: leaseUntil, expired };
  const picks = allowances.map((a, i) => {
    params[`w${i}`] = a.webhook_id;
    params[`n${i}`] = a.n;
    return `(SELECT delivery_id FROM deliveries d WHERE d.webhook_id = $w${i} AND ${DUE} ORDER BY d.next_attempt_at LIMIT $n${i})`;
  });
  return db.all<{ delivery_id: string; webhook_id: string; event_id: string; attempts: number }>(`UPDATE deliveries d SET status = 'sending', attempts = d.attempts + 1,
      next_attempt_at = $lease_until::TIMESTAMP, updated_at = $now::TIMESTAMP
    FROM (${picks.join(' UNION ALL ')}) p
    WHERE d.delivery_id = p.delivery_id AND ${DUE}
    RETURNING d.delivery_id, d.webhook_id, d.event_id, d.attempts`, params);
}

/** The leased deliveries joined with what sending needs: their event and subscription. */
export async function loadForSending(
  db: Pick<Queryable, 'all'>, leased: ReadonlyArray<{ delivery_id: string; event_id: string; webhook_id: string; attempts: number }>,
): Promise<ClaimedDelivery[]> {
  return db.all<ClaimedDelivery>(`
    SELECT v.delivery_id, v.webhook_id, v.attempts::INTEGER AS attempts, s.url, s.secret, s.previous_secret,
           s.previous_secret_expires_at, s.failing_since, e.type, e.created_at, CAST(e.payload AS VARCHAR) AS payload
    FROM (SELECT unnest($ids::VARCHAR[]) AS delivery_id, unnest($events::VARCHAR[]) AS event_id,
                 unnest($webhooks::VARCHAR[]) AS webhook_id, unnest($attempts::DOUBLE[]) AS attempts) v
    JOIN events e ON e.event_id = v.event_id JOIN webhook_subscriptions s ON s.webhook_id = v.webhook_id`, {
    ids: leased.map((l) => l.delivery_id), events: leased.map((l) => l.event_id),
    webhooks: leased.map((l) => l.webhook_id), attempts: leased.map((l) => l.attempts),
  });
}

/**
 * Writes a batch of finished attempts: the attempt log, each delivery's new state
 * (only if our claim is still the current one) and the subscriptions' health.
 */
export async function recordAttempts(tx: Queryable, records: readonly AttemptRecord[], now: string): Promise<void> {
  const json = JSON.stringify(records);
  await tx.run(`INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error)
    SELECT id, attempt, started, code, latency, err FROM ${RECORDS} ON CONFLICT DO NOTHING`, { records: json });
  await tx.run(`UPDATE deliveries d SET status = v.status, next_attempt_at = v.next_at, last_status_code = v.code,
      last_error = v.err, updated_at = $now::TIMESTAMP
    FROM ${RECORDS} v WHERE d.delivery_id = v.id AND d.attempts = v.attempt AND d.status = 'sending'`, { records: json, now });
}

/** Success clears a subscription's failing streak; a failure starts one if none is running. */
export async function updateHealth(tx: Queryable, succeeded: readonly string[], failed: readonly string[], now: string): Promise<void> {
  if (succeeded.length > 0) {
    await tx.run(`UPDATE webhook_subscriptions SET failing_since = NULL
      WHERE webhook_id IN (SELECT unnest($ids::VARCHAR[])) AND failing_since IS NOT NULL`, { ids: succeeded });
  }
  if (failed.length > 0) {
    await tx.run(`UPDATE webhook_subscriptions SET failing_since = $now::TIMESTAMP
      WHERE webhook_id IN (SELECT unnest($ids::VARCHAR[])) AND failing_since IS NULL`, { ids: failed, now });
  }
}

/** Disables subscriptions: those that answered 410, and those failing since before `failingBefore`. */
export async function disableSubscriptions(
  tx: Queryable, gone: readonly string[], failing: readonly string[], failingBefore: string, now: string,
): Promise<void> {
  if (gone.length > 0) {
    await tx.run(`UPDATE webhook_subscriptions SET status = 'disabled', disabled_reason = 'the receiver answered 410 Gone',
        updated_at = $now::TIMESTAMP
      WHERE webhook_id IN (SELECT unnest($ids::VARCHAR[])) AND status = 'enabled'`, { ids: gone, now });
  }
  if (failing.length > 0) {
    await tx.run(`UPDATE webhook_subscriptions SET status = 'disabled',
        disabled_reason = 'every delivery failed for 5 days', updated_at = $now::TIMESTAMP
      WHERE webhook_id IN (SELECT unnest($ids::VARCHAR[])) AND status = 'enabled'
        AND failing_since <= $before::TIMESTAMP`, { ids: failing, before: failingBefore, now });
  }
}

/** Hands back claimed deliveries not yet sent (a graceful stop), undoing their claim. */
export async function releaseClaims(store: Store, claims: ReadonlyArray<{ id: string; attempt: number }>, now: string): Promise<void> {
  if (claims.length === 0) return;
  await store.run(`UPDATE deliveries d SET status = 'pending', attempts = d.attempts - 1, next_attempt_at = $now::TIMESTAMP
    FROM (SELECT unnest($ids::VARCHAR[]) AS id, unnest($attempts::DOUBLE[]) AS attempt) v
    WHERE d.delivery_id = v.id AND d.attempts = v.attempt AND d.status = 'sending'`,
  { ids: claims.map((c) => c.id), attempts: claims.map((c) => c.attempt), now });
}

/** Deletes events, deliveries and attempt logs older than `cutoff`; answers how many events went. */
export async function pruneBefore(store: Store, cutoff: string): Promise<number> {
  return store.transaction(async (tx) => {
    await tx.run(`DELETE FROM delivery_attempts WHERE delivery_id IN
      (SELECT d.delivery_id FROM deliveries d JOIN events e ON e.event_id = d.event_id WHERE e.created_at < $cutoff::TIMESTAMP)`, { cutoff });
    await tx.run(`DELETE FROM deliveries WHERE event_id IN (SELECT event_id FROM events WHERE created_at < $cutoff::TIMESTAMP)`, { cutoff });
    return tx.run(`DELETE FROM events WHERE created_at < $cutoff::TIMESTAMP AND fanned_out_at IS NOT NULL`, { cutoff });
  });
}
