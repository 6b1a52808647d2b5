import type { Config } from '../../config/config.js';
import {
  DeliveryWorker,
  newSecret,
  webhookWorkerOptions,
  type WebhookWorkerOptions,
} from '../../connectors/webhooks/index.js';
import { newId } from '../../data/ids.js';
import type { StateDb } from '../../data/state/state-db.js';

/** Env for webhook tests: the loopback receiver allow-listed, a short retry schedule and timeout. */
export const WEBHOOK_TEST_ENV = {
  CDS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  CDS_WEBHOOK_RETRY_SCHEDULE: '1,1,2',
  CDS_WEBHOOK_TIMEOUT_MS: '500',
};

export interface TestSubscription {
  webhook_id: string;
  secret: string;
}

/** Writes a subscription row directly (the delivery engine's tests do not go through the API). */
export async function addSubscription(
  state: StateDb,
  sub: { account_id: string; url: string; events?: string[]; filter?: object | null; previous_secret?: string },
): Promise<TestSubscription> {
  const webhook_id = newId('whk');
  const secret = newSecret();
  const now = new Date().toISOString();
  await state.run(
    `INSERT INTO webhook_subscriptions (webhook_id, account_id, url, events, filter, secret, previous_secret,
      previous_secret_expires_at, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?::JSON, ?, ?, ?::TIMESTAMP, ?::TIMESTAMP, ?::TIMESTAMP)`,
    [
      webhook_id,
      sub.account_id,
      sub.url,
      sub.events ?? ['*'],
      sub.filter ? JSON.stringify(sub.filter) : null,
      secret,
      sub.previous_secret ?? null,
      sub.previous_secret ? new Date(Date.now() + 3600_000).toISOString() : null,
      now,
      now,
    ],
  );
  return { webhook_id, secret };
}

/** Writes an event into the (service state's) outbox as the pipelines' events arrive there. */
export async function addEvent(
  state: StateDb,
  e: {
    type: string;
    account_id?: string | null;
    creator_id?: number | null;
    campaign_id?: string | null;
    data?: object;
  },
): Promise<string> {
  const event_id = newId('evt');
  await state.run(
    `INSERT INTO events (event_id, type, account_id, creator_id, campaign_id, payload) VALUES (?, ?, ?, ?, ?, ?::JSON)`,
    [
      event_id,
      e.type,
      e.account_id ?? null,
      e.creator_id ?? null,
      e.campaign_id ?? null,
      JSON.stringify(e.data ?? { n: 1 }),
    ],
  );
  return event_id;
}

/** How many delivery attempts an event has had, over all its deliveries. */
export async function attemptsOfEvent(state: StateDb, eventId: string): Promise<number> {
  const row = await state.one<{ n: number }>(
    'SELECT count(*) AS n FROM delivery_attempts a JOIN deliveries d USING (delivery_id) WHERE d.event_id = ?',
    [eventId],
  );
  return Number(row?.n ?? 0);
}

/** A started worker with test-friendly polling, on the service state (a PostgreSQL one in the cluster-mode project). */
export function startWorker(
  state: StateDb,
  config: Readonly<Config>,
  overrides: Partial<WebhookWorkerOptions> = {},
): DeliveryWorker {
  const worker = new DeliveryWorker(state, webhookWorkerOptions(config, { pollMs: 20, ...overrides }));
  worker.start();
  return worker;
}

/** The shared poll helper (test/helpers/eventually.ts), here too because the webhook tests wait with it. */
export { eventually } from '../helpers/eventually.js';
