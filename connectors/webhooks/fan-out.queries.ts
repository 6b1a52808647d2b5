import type { StateQueryable } from '../../data/state/state-db.js';

/** Subscriptions with their filter lists unpacked (empty when absent), for matching in one join. */
function enabledSubscriptions(db: StateQueryable): string {
  const list = (key: string) => db.sql.jsonTextList('filter', key);
  return `
  SELECT webhook_id, account_id, events AS types,
         ${list('list_ids')} AS list_ids, ${list('handles')} AS handles, ${list('campaign_ids')} AS campaign_ids
  FROM webhook_subscriptions WHERE status = 'enabled'`;
}

/**
 * (event, matching subscription) pairs of the unfanned events up to `max_seq`.
 * Account events (campaign, export) go only to their account; a `creator.updated`
 * (no account) to every account whose filter matches: no filter, the handle, or
 * membership in one of the subscription account's own lists. The handle is the
 * one the event carries (every `creator.updated` payload has it, see
 * pipelines/engine/creator-events.ts), so matching reads service state only.
 */
const matches = (db: StateQueryable) => `
  SELECT 'dlv_' || substr(md5(e.event_id || '/' || s.webhook_id), 1, 21) AS delivery_id, e.event_id, s.webhook_id, e.seq,
         row_number() OVER (PARTITION BY s.webhook_id ORDER BY e.seq) AS rn
  FROM events e
  JOIN (${enabledSubscriptions(db)}) s
    ON (list_contains(s.types, e.type) OR list_contains(s.types, '*'))
   AND (e.account_id IS NULL OR e.account_id = s.account_id)
  WHERE e.fanned_out_at IS NULL AND e.seq <= $max_seq AND e.type <> 'webhook.test'
    AND (e.type <> 'creator.updated'
         OR (len(s.list_ids) = 0 AND len(s.handles) = 0)
         OR list_contains(s.handles, lower(e.payload->>'handle')::VARCHAR)
         OR EXISTS (SELECT 1 FROM list_members m JOIN lists l ON l.list_id = m.list_id
                    WHERE m.creator_id = e.creator_id AND l.account_id = s.account_id
                      AND list_contains(s.list_ids, m.list_id)))
    AND (e.type <> 'campaign.metrics_updated' OR len(s.campaign_ids) = 0
         OR list_contains(s.campaign_ids, e.campaign_id))`;

/**
 * One delivery per match. The id is derived from the pair, so fanning the same
 * event out twice cannot duplicate a delivery. Up to `limit` of them (at most
 * `cap - held` per subscription) are created already leased to the calling worker
 * (attempt 1 claimed), sparing the claim's UPDATE for every first attempt.
 */
const insertDeliveries = (db: StateQueryable) => `
  INSERT INTO deliveries (delivery_id, event_id, webhook_id, status, attempts, next_attempt_at, created_at, updated_at)
  SELECT delivery_id, event_id, webhook_id,
         CASE WHEN leased THEN 'sending' ELSE 'pending' END, CASE WHEN leased THEN 1 ELSE 0 END,
         CASE WHEN leased THEN $lease_until::TIMESTAMP ELSE $now::TIMESTAMP END, $now::TIMESTAMP, $now::TIMESTAMP
  FROM (
    SELECT *, eligible AND row_number() OVER (PARTITION BY eligible ORDER BY seq, webhook_id) <= $limit AS leased
    FROM (
      SELECT m.*, m.rn <= $cap - coalesce(h.n, 0) AS eligible
      FROM (${matches(db)}) m
      LEFT JOIN (SELECT unnest($held_ids::VARCHAR[]) AS webhook_id, unnest($held_counts::FLOAT8[]) AS n) h
        ON h.webhook_id = m.webhook_id) matched) numbered
  ON CONFLICT DO NOTHING
  RETURNING delivery_id, event_id, webhook_id, attempts, status`;

/** How many new deliveries the fan-out may lease to its worker, and for how long. */
export interface FanOutLease {
  leaseUntil: string;
  limit: number;
  cap: number;
  held: ReadonlyMap<string, number>;
}

export type LeasedDelivery = {
  delivery_id: string;
  event_id: string;
  webhook_id: string;
  attempts: number;
};

/** The highest seq of the next batch of events not yet fanned out, or null when there are none. */
export async function nextFanOutBound(db: StateQueryable, batch: number): Promise<number | null> {
  const row = await db.one<{ max_seq: number | null }>(
    `SELECT max(seq) AS max_seq FROM (SELECT seq FROM events WHERE fanned_out_at IS NULL ORDER BY seq LIMIT ?) unfanned`,
    [batch],
  );
  return row?.max_seq ?? null;
}

/** Creates the deliveries of every unfanned event up to `maxSeq` and marks those events fanned out. */
export async function fanOutUpTo(
  db: StateQueryable,
  maxSeq: number,
  now: string,
  lease: FanOutLease | null,
): Promise<{ events: number; leased: LeasedDelivery[] }> {
  const created = await db.all<LeasedDelivery & { status: string }>(insertDeliveries(db), {
    now,
    max_seq: maxSeq,
    lease_until: lease?.leaseUntil ?? now,
    limit: lease?.limit ?? 0,
    cap: lease?.cap ?? 0,
    held_ids: [...(lease?.held.keys() ?? [])],
    held_counts: [...(lease?.held.values() ?? [])],
  });
  const events = await db.run(
    `UPDATE events SET fanned_out_at = $now::TIMESTAMP WHERE fanned_out_at IS NULL AND seq <= $max_seq`,
    { now, max_seq: maxSeq },
  );
  return { events, leased: created.filter((d) => d.status === 'sending').map(({ status: _s, ...d }) => d) };
}
