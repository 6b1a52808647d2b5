import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../connectors/webhooks/index.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { addEvent, addSubscription, eventually, startWorker, WEBHOOK_TEST_ENV } from './webhook-fixtures.js';

let t: TestStore;
let receiver: Receiver;
let worker: DeliveryWorker | null = null;
const DAY = 86_400_000;

beforeEach(async () => {
  t = await createTestStore({ env: { ...WEBHOOK_TEST_ENV, CDS_RETENTION_DAYS: '30' } });
  receiver = await startReceiver();
});

afterEach(async () => {
  await worker?.stop();
  worker = null;
  await receiver.close();
  await t.cleanup();
});

async function setFailingSince(webhookId: string, daysAgo: number): Promise<void> {
  await t.state.run('UPDATE webhook_subscriptions SET failing_since = ?::TIMESTAMP WHERE webhook_id = ?', [
    new Date(Date.now() - daysAgo * DAY).toISOString(),
    webhookId,
  ]);
}

async function subscription(webhookId: string) {
  return t.state.one<{ status: string; disabled_reason: string | null; failing_since: Date | null }>(
    'SELECT status, disabled_reason, failing_since FROM webhook_subscriptions WHERE webhook_id = ?',
    [webhookId],
  );
}

describe('webhook subscription health and retention', () => {
  it('a subscription that has failed every delivery for 5 days is disabled at its next failure', async () => {
    receiver.respond(() => ({ status: 500 }));
    const old = await addSubscription(t.state, { account_id: 'acct_old', url: receiver.url });
    const young = await addSubscription(t.state, { account_id: 'acct_young', url: receiver.url });
    await setFailingSince(old.webhook_id, 6);
    await setFailingSince(young.webhook_id, 1);
    await addEvent(t.state, { type: 'export.completed', account_id: 'acct_old' });
    await addEvent(t.state, { type: 'export.completed', account_id: 'acct_young' });
    worker = startWorker(t.state, t.config);
    await eventually(async () => (await subscription(old.webhook_id))?.status === 'disabled');
    expect((await subscription(old.webhook_id))?.disabled_reason).toBe('every delivery failed for 5 days');
    await receiver.waitFor(2);
    expect((await subscription(young.webhook_id))?.status).toBe('enabled');
  });

  it('a successful delivery ends a failing streak', async () => {
    const sub = await addSubscription(t.state, { account_id: 'acct_a', url: receiver.url });
    await setFailingSince(sub.webhook_id, 2);
    await addEvent(t.state, { type: 'export.completed', account_id: 'acct_a' });
    worker = startWorker(t.state, t.config);
    await eventually(async () => (await subscription(sub.webhook_id))?.failing_since === null);
    expect((await subscription(sub.webhook_id))?.status).toBe('enabled');
  });

  it('events, deliveries and attempt logs older than the retention period are pruned; newer ones stay', async () => {
    await addSubscription(t.state, { account_id: 'acct_a', url: receiver.url });
    await addEvent(t.state, { type: 'export.completed', account_id: 'acct_a', data: { old: true } });
    worker = startWorker(t.state, t.config);
    await receiver.waitFor(1);
    await eventually(
      async () => (await t.state.one<{ n: number }>('SELECT count(*) AS n FROM delivery_attempts'))?.n === 1,
    );
    await worker.stop();
    const longAgo = new Date(Date.now() - 31 * DAY).toISOString();
    await t.state.run('UPDATE events SET created_at = ?::TIMESTAMP', [longAgo]);
    await addEvent(t.state, { type: 'export.completed', account_id: 'acct_a', data: { old: false } });
    worker = startWorker(t.state, t.config);
    await receiver.waitFor(2);
    await eventually(
      async () => (await t.state.one<{ n: number }>('SELECT count(*) AS n FROM delivery_attempts'))?.n === 1,
    );
    const events = await t.state.all<{ payload: string }>('SELECT CAST(payload AS VARCHAR) AS payload FROM events');
    expect(events.map((e) => JSON.parse(e.payload))).toEqual([{ old: false }]);
    expect((await t.state.one<{ n: number }>('SELECT count(*) AS n FROM deliveries'))?.n).toBe(1);
    expect(
      (
        await t.state.one<{ n: number }>(
          'SELECT count(*) AS n FROM delivery_attempts WHERE delivery_id NOT IN (SELECT delivery_id FROM deliveries)',
        )
      )?.n,
    ).toBe(0);
  });

  it('a graceful stop finishes sends in flight, hands unsent claims back, and a restart delivers each event exactly once', async () => {
    receiver.respond(() => ({ delayMs: 100 }));
    await addSubscription(t.state, { account_id: 'acct_a', url: receiver.url });
    for (let i = 0; i < 12; i++)
      await addEvent(t.state, { type: 'export.completed', account_id: 'acct_a', data: { i } });
    worker = startWorker(t.state, t.config, { maxInFlight: 2, perEndpoint: 2 });
    await receiver.waitFor(3);
    await worker.stop();
    const sending = await t.state.one<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE status = 'sending'");
    expect(sending?.n).toBe(0);
    worker = startWorker(t.state, t.config, { maxInFlight: 2, perEndpoint: 2 });
    await eventually(
      async () =>
        (await t.state.one<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded'"))?.n === 12,
    );
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
    const attempts = await t.state.all<{ attempt: number; error: string | null }>(
      'SELECT attempt, error FROM delivery_attempts',
    );
    expect(attempts.every((a) => a.attempt === 1 && a.error === null)).toBe(true);
  });
});
