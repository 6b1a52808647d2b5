import type { StateQueryable } from '../../data/state/state-db.js';
import { timestampSql } from '../../data/timestamps.js';

/** A `webhook_subscriptions` row as the mapper reads it (timestamps as ISO strings, the secret never). */
export interface SubscriptionRow extends Record<string, unknown> {
  webhook_id: string;
  url: string;
  events: string[];
  description: string | null;
  filter: string | null;
  status: string;
  disabled_reason: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

const SUBSCRIPTION_SELECT = `SELECT webhook_id, url, events, description, CAST(filter AS VARCHAR) AS filter, status, disabled_reason,
    CASE WHEN previous_secret_expires_at > $now::TIMESTAMP THEN ${timestampSql('previous_secret_expires_at')} END AS previous_secret_expires_at,
    ${timestampSql('created_at')} AS created_at, ${timestampSql('updated_at')} AS updated_at
  FROM webhook_subscriptions`;

export function selectSubscriptions(
  db: StateQueryable,
  accountId: string,
  afterId: string | null,
  limit: number,
  now: string,
): Promise<SubscriptionRow[]> {
  return db.all<SubscriptionRow>(
    `${SUBSCRIPTION_SELECT}
    WHERE account_id = $account AND ($after::VARCHAR IS NULL OR webhook_id > $after) ORDER BY webhook_id LIMIT $limit`,
    { account: accountId, after: afterId, limit, now },
  );
}

export function selectSubscription(
  db: StateQueryable,
  accountId: string,
  webhookId: string,
  now: string,
): Promise<SubscriptionRow | undefined> {
  return db.one<SubscriptionRow>(`${SUBSCRIPTION_SELECT} WHERE account_id = $account AND webhook_id = $id`, {
    account: accountId,
    id: webhookId,
    now,
  });
}

export async function countSubscriptions(db: StateQueryable, accountId: string): Promise<number> {
  return (
    (await db.one<{ n: number }>('SELECT count(*) AS n FROM webhook_subscriptions WHERE account_id = ?', [accountId]))
      ?.n ?? 0
  );
}

export function insertSubscription(
  db: StateQueryable,
  row: {
    webhook_id: string;
    account_id: string;
    url: string;
    events: readonly string[];
    description: string | null;
    filter: string | null;
    secret: string;
    now: string;
  },
): Promise<number> {
  return db.run(
    `INSERT INTO webhook_subscriptions (webhook_id, account_id, url, events, description, filter, secret, created_at, updated_at)
    VALUES ($id, $account, $url, $events, $description, $filter::JSON, $secret, $now::TIMESTAMP, $now::TIMESTAMP)`,
    {
      id: row.webhook_id,
      account: row.account_id,
      url: row.url,
      events: row.events,
      description: row.description,
      filter: row.filter,
      secret: row.secret,
      now: row.now,
    },
  );
}

/** The fields a PATCH may set; undefined leaves a field as it is. */
export interface SubscriptionPatch {
  url?: string;
  events?: readonly string[];
  description?: string | null;
  filter?: string | null;
  status?: 'enabled' | 'disabled';
}

/**
 * Applies a patch. Enabling clears the disabled reason and the failing streak (a
 * fresh start); disabling by the API records that as the reason.
 */
export function updateSubscription(
  db: StateQueryable,
  accountId: string,
  webhookId: string,
  p: SubscriptionPatch,
  now: string,
): Promise<number> {
  return db.run(
    `UPDATE webhook_subscriptions SET
      url = CASE WHEN $set_url THEN $url::VARCHAR ELSE url END,
      events = CASE WHEN $set_events THEN $events::VARCHAR[] ELSE events END,
      description = CASE WHEN $set_description THEN $description::VARCHAR ELSE description END,
      filter = CASE WHEN $set_filter THEN $filter::JSON ELSE filter END,
      disabled_reason = CASE WHEN $status::VARCHAR = 'enabled' THEN NULL
                             WHEN $status::VARCHAR = 'disabled' AND status = 'enabled' THEN 'disabled through the API'
                             ELSE disabled_reason END,
      failing_since = CASE WHEN $status::VARCHAR = 'enabled' AND status = 'disabled' THEN NULL ELSE failing_since END,
      status = coalesce($status::VARCHAR, status),
      updated_at = $now::TIMESTAMP
    WHERE account_id = $account AND webhook_id = $id`,
    {
      set_url: p.url !== undefined,
      url: p.url ?? null,
      set_events: p.events !== undefined,
      events: p.events ?? [],
      set_description: p.description !== undefined,
      description: p.description ?? null,
      set_filter: p.filter !== undefined,
      filter: p.filter ?? null,
      status: p.status ?? null,
      now,
      account: accountId,
      id: webhookId,
    },
  );
}

/** Puts a new secret in place; the old one keeps signing until `graceUntil`. */
export function rotateSecret(
  db: StateQueryable,
  accountId: string,
  webhookId: string,
  secret: string,
  graceUntil: string,
  now: string,
): Promise<number> {
  return db.run(
    `UPDATE webhook_subscriptions SET previous_secret = secret, secret = $secret,
      previous_secret_expires_at = $grace::TIMESTAMP, updated_at = $now::TIMESTAMP
    WHERE account_id = $account AND webhook_id = $id`,
    { secret, grace: graceUntil, now, account: accountId, id: webhookId },
  );
}

/** Deletes a subscription with its deliveries and their attempt log. Answers whether it existed. */
export async function deleteSubscription(db: StateQueryable, accountId: string, webhookId: string): Promise<boolean> {
  const gone = await db.run('DELETE FROM webhook_subscriptions WHERE account_id = ? AND webhook_id = ?', [
    accountId,
    webhookId,
  ]);
  if (gone === 0) return false;
  await db.run(
    `DELETE FROM delivery_attempts WHERE delivery_id IN (SELECT delivery_id FROM deliveries WHERE webhook_id = ?)`,
    [webhookId],
  );
  await db.run('DELETE FROM deliveries WHERE webhook_id = ?', [webhookId]);
  return true;
}

/** Lists of the account among `listIds` (to reject foreign or unknown ones in a filter). */
export async function ownListIds(
  db: StateQueryable,
  accountId: string,
  listIds: readonly string[],
): Promise<Set<string>> {
  const rows = await db.all<{ list_id: string }>(
    'SELECT list_id FROM lists WHERE account_id = ? AND list_id IN (SELECT unnest(?::VARCHAR[]))',
    [accountId, listIds],
  );
  return new Set(rows.map((r) => r.list_id));
}

/**
 * Writes a `webhook.test` event already fanned out, with its one delivery due now:
 * a ping goes to the subscription asked, not to every subscriber of the account.
 */
export async function insertTestDelivery(
  db: StateQueryable,
  row: {
    event_id: string;
    delivery_id: string;
    account_id: string;
    webhook_id: string;
    payload: string;
    now: string;
  },
): Promise<void> {
  await db.run(
    `INSERT INTO events (event_id, type, account_id, payload, created_at, fanned_out_at)
    VALUES ($event, 'webhook.test', $account, $payload::JSON, $now::TIMESTAMP, $now::TIMESTAMP)`,
    { event: row.event_id, account: row.account_id, payload: row.payload, now: row.now },
  );
  await db.run(
    `INSERT INTO deliveries (delivery_id, event_id, webhook_id, status, attempts, next_attempt_at, created_at, updated_at)
    VALUES ($delivery, $event, $webhook, 'pending', 0, $now::TIMESTAMP, $now::TIMESTAMP, $now::TIMESTAMP)`,
    { delivery: row.delivery_id, event: row.event_id, webhook: row.webhook_id, now: row.now },
  );
}
