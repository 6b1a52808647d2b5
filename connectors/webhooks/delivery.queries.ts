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

/** Attempts whose lease ran out (the process died or hung mid-send) are logged as interrupted before reclaiming. */
const LOG_INTERRUPTED = `
  INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error)
  SELECT delivery_id, attempts, updated_at, NULL, NULL, 'interrupted: the worker stopped before the attempt finished'
  FROM deliveries WHERE status = 'sending' AND next_attempt_at <= $now::TIMESTAMP AND attempts > 0
  ON CONFLICT DO NOTHING`;

/**
 * Due deliveries of enabled subscriptions, at most `cap - held` per subscription
 * (held = claimed and not yet finished here), oldest due first.
 */
const PICK_DUE = `
  WITH held AS (SELECT unnest($held_ids::VARCHAR[]) AS webhook_id, unnest($held_counts::DOUBLE[]) AS n),
  due AS (
    SELECT d.delivery_id, d.webhook_id, d.next_attempt_at,
           row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.delivery_id) AS rn
    FROM deliveries d JOIN webhook_subscriptions s ON s.webhook_id = d.webhook_id
    WHERE d.status IN ('pending', 'sending') AND d.next_attempt_at <= $now::TIMESTAMP AND s.status = 'enabled')
  SELECT due.delivery_id FROM due LEFT JOIN held ON held.webhook_id = due.webhook_id
  WHERE due.rn <= $cap - coalesce(held.n, 0)
  ORDER BY due.next_attempt_at, due.delivery_id LIMIT $limit`;

const LEASE = `
  UPDATE deliveries SET status = 'sending', attempts = attempts + 1, next_attempt_at = $lease_until::TIMESTAMP,
         updated_at = $now::TIMESTAMP
  WHERE delivery_id IN (SELECT unnest($ids::VARCHAR[])) AND status IN ('pending', 'sending')
    AND next_attempt_at <= $now::TIMESTAMP`;

const LOAD_CLAIMED = `
  SELECT d.delivery_id, d.webhook_id, d.attempts, s.url, s.secret, s.previous_secret, s.previous_secret_expires_at,
         e.type, e.created_at, CAST(e.payload AS VARCHAR) AS payload
  FROM deliveries d JOIN events e ON e.event_id = d.event_id JOIN webhook_subscriptions s ON s.webhook_id = d.webhook_id
  WHERE d.delivery_id IN (SELECT unnest($ids::VARCHAR[])) AND d.status = 'sending'`;

export interface ClaimRequest {
  now: string;
  leaseUntil: string;
  limit: number;
  perEndpointCap: number;
  held: ReadonlyMap<string, number>;
}

/** Leases up to `limit` due deliveries in one transaction and answers them ready to send. */
export async function claimDue(store: Store, req: ClaimRequest): Promise<ClaimedDelivery[]> {
  return store.transaction(async (tx) => {
    await tx.run(LOG_INTERRUPTED, { now: req.now });
    const picked = await tx.all<{ delivery_id: string }>(PICK_DUE, {
      now: req.now, cap: req.perEndpointCap, limit: req.limit,
      held_ids: [...req.held.keys()], held_counts: [...req.held.values()],
    });
    if (picked.length === 0) return [];
    const ids = picked.map((r) => r.delivery_id);
    await tx.run(LEASE, { ids, now: req.now, lease_until: req.leaseUntil });
    return tx.all<ClaimedDelivery>(LOAD_CLAIMED, { ids });
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
