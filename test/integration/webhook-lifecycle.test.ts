import { describe, expect, it } from 'vitest';
import { addEvent, addSubscription, eventually, WEBHOOK_TEST_ENV } from './webhook-fixtures.js';
import { useDeliveryHarness } from './webhook-harness.js';

const DAY = 86_400_000;
const fx = useDeliveryHarness({ ...WEBHOOK_TEST_ENV, CDS_RETENTION_DAYS: '30' });

async function setFailingSince(webhookId: string, daysAgo: number): Promise<void> {
  await fx.state.run('UPDATE webhook_subscriptions SET failing_since = ?::TIMESTAMP WHERE webhook_id = ?', [
    new Date(Date.now() - daysAgo * DAY).toISOString(),
    webhookId,
  ]);
}

async function subscription(webhookId: string) {
  return fx.state.one<{ status: string; disabled_reason: string | null; failing_since: Date | null }>(
    'SELECT status, disabled_reason, failing_since FROM webhook_subscriptions WHERE webhook_id = ?',
    [webhookId],
  );
}

describe('webhook subscription health and retention', () => {
  it('a subscription that has failed every delivery for 5 days is disabled at its next failure', async () => {
    fx.receiver.respond(() => ({ status: 500 }));
    const old = await addSubscription(fx.state, { account_id: 'acct_old', url: fx.receiver.url });
    const young = await addSubscription(fx.state, { account_id: 'acct_young', url: fx.receiver.url });
    await setFailingSince(old.webhook_id, 6);
    await setFailingSince(young.webhook_id, 1);
    await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_old' });
    await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_young' });
    fx.startWorker();
    await eventually(async () => (await subscription(old.webhook_id))?.status === 'disabled');
    expect((await subscription(old.webhook_id))?.disabled_reason).toBe('every delivery failed for 5 days');
    await fx.receiver.waitFor(2);
    expect((await subscription(young.webhook_id))?.status).toBe('enabled');
  });

  it('a successful delivery ends a failing streak', async () => {
    const sub = await addSubscription(fx.state, { account_id: 'acct_a', url: fx.receiver.url });
    await setFailingSince(sub.webhook_id, 2);
    await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
    fx.startWorker();
    await eventually(async () => (await subscription(sub.webhook_id))?.failing_since === null);
    expect((await subscription(sub.webhook_id))?.status).toBe('enabled');
  });

  it('events, deliveries and attempt logs older than the retention period are pruned; newer ones stay', async () => {
    await addSubscription(fx.state, { account_id: 'acct_a', url: fx.receiver.url });
    await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a', data: { old: true } });
    fx.startWorker();
    await fx.receiver.waitFor(1);
    await eventually(
      async () => (await fx.state.one<{ n: number }>('SELECT count(*) AS n FROM delivery_attempts'))?.n === 1,
    );
    await fx.stopWorker();
    const longAgo = new Date(Date.now() - 31 * DAY).toISOString();
    await fx.state.run('UPDATE events SET created_at = ?::TIMESTAMP', [longAgo]);
    await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a', data: { old: false } });
    fx.startWorker();
    await fx.receiver.waitFor(2);
    await eventually(
      async () => (await fx.state.one<{ n: number }>('SELECT count(*) AS n FROM delivery_attempts'))?.n === 1,
    );
    const events = await fx.state.all<{ payload: string }>('SELECT CAST(payload AS VARCHAR) AS payload FROM events');
    expect(events.map((e) => JSON.parse(e.payload))).toEqual([{ old: false }]);
    expect((await fx.state.one<{ n: number }>('SELECT count(*) AS n FROM deliveries'))?.n).toBe(1);
    expect(
      (
        await fx.state.one<{ n: number }>(
          'SELECT count(*) AS n FROM delivery_attempts WHERE delivery_id NOT IN (SELECT delivery_id FROM deliveries)',
        )
      )?.n,
    ).toBe(0);
  });

  it('a graceful stop finishes sends in flight, hands unsent claims back, and a restart delivers each event exactly once', async () => {
    fx.receiver.respond(() => ({ delayMs: 100 }));
    await addSubscription(fx.state, { account_id: 'acct_a', url: fx.receiver.url });
    for (let i = 0; i < 12; i++)
      await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a', data: { i } });
    fx.startWorker({ maxInFlight: 2, perEndpoint: 2 });
    await fx.receiver.waitFor(3);
    await fx.stopWorker();
    const sending = await fx.state.one<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE status = 'sending'");
    expect(sending?.n).toBe(0);
    fx.startWorker({ maxInFlight: 2, perEndpoint: 2 });
    await eventually(
      async () =>
        (await fx.state.one<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded'"))?.n ===
        12,
    );
    const ids = fx.receiver.requests.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(12);
    expect(new Set(ids).size).toBe(12);
    const attempts = await fx.state.all<{ attempt: number; error: string | null }>(
      'SELECT attempt, error FROM delivery_attempts',
    );
    expect(attempts.every((a) => a.attempt === 1 && a.error === null)).toBe(true);
  });
});
