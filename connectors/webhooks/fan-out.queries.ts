import type { Queryable } from '../../data/store.js';

/** Subscriptions with their filter lists unpacked, for matching in one join. */
const ENABLED_SUBSCRIPTIONS = `
  SELECT webhook_id, account_id, events AS types,
         coalesce(CAST(filter->'$.list_ids' AS VARCHAR[]), []) AS list_ids,
         coalesce(CAST(filter->'$.handles' AS VARCHAR[]), []) AS handles,
         coalesce(CAST(filter->'$.campaign_ids' AS VARCHAR[]), []) AS campaign_ids
  FROM webhook_subscriptions WHERE status = 'enabled'`;

/**
 * One delivery per (event, matching subscription), set-based. The delivery id is
 * derived from the pair, so fanning the same event out twice cannot duplicate a
 * delivery. Account events (campaign, export) go only to their account; a
 * `creator.updated` (no account) to every account whose filter matches: no filter,
 * the handle, or membership in one of the subscription account's own lists.
 */
const INSERT_DELIVERIES = `
  INSERT INTO deliveries (delivery_id, event_id, webhook_id, status, attempts, next_attempt_at, created_at, updated_at)
  SELECT 'dlv_' || substr(md5(e.event_id || '/' || s.webhook_id), 1, 21), e.event_id, s.webhook_id,
         'pending', 0, $now::TIMESTAMP, $now::TIMESTAMP, $now::TIMESTAMP
  FROM events e
  JOIN (${ENABLED_SUBSCRIPTIONS}) s
    ON (list_contains(s.types, e.type) OR list_contains(s.types, '*'))
   AND (e.account_id IS NULL OR e.account_id = s.account_id)
  LEFT JOIN creators c ON c.creator_id = e.creator_id
  WHERE e.fanned_out_at IS NULL AND e.seq <= $max_seq AND e.type <> 'webhook.test'
    AND (e.type <> 'creator.updated'
         OR (len(s.list_ids) = 0 AND len(s.handles) = 0)
         OR list_contains(s.handles, lower(coalesce(c.handle, e.payload->>'$.handle')))
         OR EXISTS (SELECT 1 FROM list_members m JOIN lists l ON l.list_id = m.list_id
                    WHERE m.creator_id = e.creator_id AND l.account_id = s.account_id
                      AND list_contains(s.list_ids, m.list_id)))
    AND (e.type <> 'campaign.metrics_updated' OR len(s.campaign_ids) = 0
         OR list_contains(s.campaign_ids, e.campaign_id))
  ON CONFLICT DO NOTHING`;

/** The highest seq of the next batch of events not yet fanned out, or null when there are none. */
export async function nextFanOutBound(db: Pick<Queryable, 'one'>, batch: number): Promise<number | null> {
  const row = await db.one<{ max_seq: number | null }>(
    `SELECT max(seq) AS max_seq FROM (SELECT seq FROM events WHERE fanned_out_at IS NULL ORDER BY seq LIMIT ?)`, [batch]);
  return row?.max_seq ?? null;
}

/** Creates the deliveries of every unfanned event up to `maxSeq` and marks those events fanned out. */
export async function fanOutUpTo(db: Queryable, maxSeq: number, now: string): Promise<{ events: number; deliveries: number }> {
  const deliveries = await db.run(INSERT_DELIVERIES, { now, max_seq: maxSeq });
  const events = await db.run(
    `UPDATE events SET fanned_out_at = $now::TIMESTAMP WHERE fanned_out_at IS NULL AND seq <= $max_seq`, { now, max_seq: maxSeq });
  return { events, deliveries };
}
