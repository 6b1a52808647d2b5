import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { startReceiver } from '../helpers/receiver.js';
import { addEvent, addSubscription, attemptsOfEvent, eventually } from './webhook-fixtures.js';
import { useDeliveryHarness } from './webhook-harness.js';

const fx = useDeliveryHarness();

async function deliveryOf(eventId: string) {
  return fx.state.one<{
    delivery_id: string;
    status: string;
    attempts: number;
    last_status_code: number | null;
    next_attempt_at: Date | null;
  }>('SELECT delivery_id, status, attempts, last_status_code, next_attempt_at FROM deliveries WHERE event_id = ?', [
    eventId,
  ]);
}

async function fannedOut(eventId: string): Promise<boolean> {
  return (
    (
      await fx.state.one<{ fanned_out_at: Date | null }>('SELECT fanned_out_at FROM events WHERE event_id = ?', [
        eventId,
      ])
    )?.fanned_out_at != null
  );
}

async function attemptsOf(deliveryId: string) {
  return fx.state.all<{ attempt: number; status_code: number | null; latency_ms: number | null; error: string | null }>(
    'SELECT attempt, status_code, latency_ms, error FROM delivery_attempts WHERE delivery_id = ? ORDER BY attempt',
    [deliveryId],
  );
}

describe('webhook delivery', () => {
  it('delivers {type, timestamp, data} signed so the standardwebhooks verifier accepts it', async () => {
    const sub = await addSubscription(fx.state, { account_id: 'acct_a', url: fx.receiver.url });
    const eventId = await addEvent(fx.state, {
      type: 'export.completed',
      account_id: 'acct_a',
      data: { export_id: 'exp_1' },
    });
    fx.startWorker();
    const [req] = await fx.receiver.waitFor(1);
    const verified = new Webhook(sub.secret).verify(req!.body, req!.headers) as {
      type: string;
      timestamp: string;
      data: unknown;
    };
    expect(verified.type).toBe('export.completed');
    expect(verified.data).toEqual({ export_id: 'exp_1' });
    expect(verified.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    await eventually(async () => (await deliveryOf(eventId))?.status === 'succeeded');
    const delivery = (await deliveryOf(eventId))!;
    expect(req!.headers['webhook-id']).toBe(delivery.delivery_id);
    const attempts = await attemptsOf(delivery.delivery_id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ attempt: 1, status_code: 200, error: null });
    expect(attempts[0]!.latency_ms).toBeGreaterThan(0);
  });

  it('during a secret rotation both signatures are sent and each verifies with its own secret', async () => {
    const old = await addSubscription(fx.state, { account_id: 'acct_x', url: fx.receiver.url, events: ['none'] });
    const sub = await addSubscription(fx.state, {
      account_id: 'acct_a',
      url: fx.receiver.url,
      previous_secret: old.secret,
    });
    await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
    fx.startWorker();
    const [req] = await fx.receiver.waitFor(1);
    expect(req!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(() => new Webhook(sub.secret).verify(req!.body, req!.headers)).not.toThrow();
    expect(() => new Webhook(old.secret).verify(req!.body, req!.headers)).not.toThrow();
  });

  it('retries failed attempts on the schedule with the same webhook-id and stops on success', async () => {
    fx.receiver.respond((r) => (r.n < 3 ? { status: 500 } : { status: 204 }));
    await addSubscription(fx.state, { account_id: 'acct_a', url: fx.receiver.url });
    const eventId = await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
    fx.startWorker();
    const reqs = await fx.receiver.waitFor(3, 10_000);
    await eventually(async () => (await deliveryOf(eventId))?.status === 'succeeded');
    expect(new Set(reqs.map((r) => r.headers['webhook-id'])).size).toBe(1);
    // schedule 1,1,2 s with ±20 % jitter
    expect(reqs[1]!.at - reqs[0]!.at).toBeGreaterThanOrEqual(750);
    expect(reqs[2]!.at - reqs[1]!.at).toBeGreaterThanOrEqual(750);
    const delivery = (await deliveryOf(eventId))!;
    const attempts = await attemptsOf(delivery.delivery_id);
    expect(attempts.map((a) => a.status_code)).toEqual([500, 500, 204]);
    expect(attempts[0]!.error).toBe('receiver answered 500: ok');
    // settled: succeeded with no retry scheduled, so no fourth request can come
    expect(delivery.next_attempt_at).toBeNull();
    expect(fx.receiver.requests).toHaveLength(3);
  });

  it('gives up after the last retry of the schedule and marks the delivery failed', async () => {
    fx.receiver.respond(() => ({ status: 503 }));
    await addSubscription(fx.state, { account_id: 'acct_a', url: fx.receiver.url });
    const eventId = await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
    fx.startWorker({ retryScheduleSeconds: [0.2, 0.2, 0.2] });
    await eventually(async () => (await deliveryOf(eventId))?.status === 'failed', 12_000, 'delivery failed');
    expect(fx.receiver.requests).toHaveLength(4);
    const sub = await fx.state.one<{ failing_since: Date | null }>('SELECT failing_since FROM webhook_subscriptions');
    expect(sub?.failing_since).toBeInstanceOf(Date);
  });

  it('honours Retry-After on 429 as the earliest next attempt', async () => {
    fx.receiver.respond((r) => (r.n === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 }));
    await addSubscription(fx.state, { account_id: 'acct_a', url: fx.receiver.url });
    await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
    fx.startWorker();
    const reqs = await fx.receiver.waitFor(2, 10_000);
    // the schedule says 1 s (±20 %); the receiver asked for 2
    expect(reqs[1]!.at - reqs[0]!.at).toBeGreaterThanOrEqual(1900);
  });

  it('when the receiver answers 410, the subscription is disabled and gets nothing more', async () => {
    fx.receiver.respond(() => ({ status: 410 }));
    const sub = await addSubscription(fx.state, { account_id: 'acct_a', url: fx.receiver.url });
    const eventId = await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
    fx.startWorker();
    await eventually(async () => (await deliveryOf(eventId))?.status === 'failed');
    const row = await fx.state.one<{ status: string; disabled_reason: string }>(
      'SELECT status, disabled_reason FROM webhook_subscriptions WHERE webhook_id = ?',
      [sub.webhook_id],
    );
    expect(row).toMatchObject({ status: 'disabled' });
    expect(row?.disabled_reason).toMatch(/410/);
    const later = await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
    // the worker fans the later event out (deliveries and the mark are one transaction) and makes none for it
    await eventually(async () => await fannedOut(later), 10_000, 'the later event fanned out');
    expect(await deliveryOf(later)).toBeUndefined();
    expect(fx.receiver.requests).toHaveLength(1);
  });

  it('a receiver that hangs times out and the attempt is logged for retry', async () => {
    fx.receiver.respond(() => ({ hang: true }));
    await addSubscription(fx.state, { account_id: 'acct_a', url: fx.receiver.url });
    const eventId = await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
    fx.startWorker();
    await eventually(
      async () =>
        ((await deliveryOf(eventId))?.attempts ?? 0) >= 1 &&
        (await attemptsOf((await deliveryOf(eventId))!.delivery_id)).length >= 1,
      5_000,
    );
    const delivery = (await deliveryOf(eventId))!;
    const [first] = await attemptsOf(delivery.delivery_id);
    expect(first!.error).toMatch(/timeout/);
    expect(first!.latency_ms).toBeGreaterThanOrEqual(450);
    expect(first!.latency_ms).toBeLessThan(2000);
  });

  it('delivers over https, and refuses a receiver whose certificate does not verify', async () => {
    const secure = await startReceiver({ https: true });
    try {
      const sub = await addSubscription(fx.state, { account_id: 'acct_a', url: secure.url });
      const eventId = await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
      fx.startWorker();
      await eventually(async () => (await attemptsOfEvent(fx.state, eventId)) === 1);
      const [first] = await attemptsOf((await deliveryOf(eventId))!.delivery_id);
      expect(first!.error).toMatch(/certificate/);
      expect(secure.requests).toHaveLength(0);
      await fx.stopWorker();
      // a development receiver with a self-signed certificate, trusted on purpose
      await fx.state.run("UPDATE deliveries SET status = 'pending', next_attempt_at = now()::TIMESTAMP");
      fx.startWorker({ rejectUnauthorized: false });
      const [req] = await secure.waitFor(1);
      expect(() => new Webhook(sub.secret).verify(req!.body, req!.headers)).not.toThrow();
    } finally {
      await fx.stopWorker();
      await secure.close();
    }
  });

  it('one slow receiver does not starve the others', async () => {
    const slow = await startReceiver({ responder: () => ({ hang: true }) });
    try {
      await addSubscription(fx.state, { account_id: 'acct_slow', url: slow.url });
      await addSubscription(fx.state, { account_id: 'acct_fast', url: fx.receiver.url });
      for (let i = 0; i < 30; i++) await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_slow' });
      for (let i = 0; i < 30; i++) await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_fast' });
      fx.startWorker({ maxInFlight: 8, perEndpoint: 4, timeoutMs: 3_000 });
      // all of them before the hung requests to the slow receiver even time out
      await fx.receiver.waitFor(30, 2_800);
      expect(slow.requests.length).toBeLessThanOrEqual(4);
    } finally {
      await fx.stopWorker();
      await slow.close();
    }
  });
});
