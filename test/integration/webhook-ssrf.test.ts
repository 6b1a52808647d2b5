import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveryWorker } from '../../connectors/webhooks/index.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { addEvent, addSubscription, eventually, startWorker, WEBHOOK_TEST_ENV } from './webhook-fixtures.js';

let t: TestStore;
let receiver: Receiver;
let worker: DeliveryWorker | null = null;

beforeEach(async () => {
  t = await createTestStore({ env: WEBHOOK_TEST_ENV });
  receiver = await startReceiver();
});

afterEach(async () => {
  await worker?.stop();
  worker = null;
  await receiver.close();
  await t.cleanup();
});

async function onlyAttempt(eventId: string) {
  await eventually(
    async () =>
      (
        await t.state.one<{ n: number }>(
          'SELECT count(*) AS n FROM delivery_attempts a JOIN deliveries d USING (delivery_id) WHERE d.event_id = ?',
          [eventId],
        )
      )?.n === 1,
  );
  return (await t.state.one<{ error: string; status: string; status_code: number | null }>(
    `SELECT a.error, d.status, a.status_code FROM delivery_attempts a JOIN deliveries d USING (delivery_id) WHERE d.event_id = ?`,
    [eventId],
  ))!;
}

describe('webhook SSRF guard at delivery time', () => {
  it('a host name resolving to loopback (localhost, not allow-listed) is refused after DNS, without connecting', async () => {
    await addSubscription(t.state, { account_id: 'acct_a', url: `https://localhost:${receiver.port}/hook` });
    const eventId = await addEvent(t.state, { type: 'export.completed', account_id: 'acct_a' });
    worker = startWorker(t.state, t.config);
    const attempt = await onlyAttempt(eventId);
    expect(attempt.error).toMatch(/^refused: the destination is not allowed/);
    expect(attempt.error).not.toMatch(/127\.0\.0\.1|::1\b/);
    expect(attempt.status).toBe('failed');
    expect(receiver.requests).toHaveLength(0);
  });

  it.each([
    'https://10.0.0.7/hook',
    'https://169.254.169.254/latest/meta-data',
    'http://192.168.1.1/hook',
    'https://[::1]:9/hook',
    'https://[::127.0.0.1]/',
    'https://[::ffff:0:127.0.0.1]/',
    'https://[64:ff9b:1::7f00:1]/',
    'https://[2002:7f00:1::]/',
  ])('a private address %s stored in a subscription is refused at delivery', async (url) => {
    await addSubscription(t.state, { account_id: 'acct_a', url });
    const eventId = await addEvent(t.state, { type: 'export.completed', account_id: 'acct_a' });
    worker = startWorker(t.state, t.config);
    const attempt = await onlyAttempt(eventId);
    expect(attempt.error).toMatch(/^refused: /);
    expect(attempt.status_code).toBeNull();
  });

  it('a redirect is not followed', async () => {
    const target = await startReceiver();
    try {
      receiver.respond(() => ({ status: 307, headers: { location: target.url } }));
      await addSubscription(t.state, { account_id: 'acct_a', url: receiver.url });
      const eventId = await addEvent(t.state, { type: 'export.completed', account_id: 'acct_a' });
      worker = startWorker(t.state, t.config);
      const attempt = await onlyAttempt(eventId);
      expect(attempt).toMatchObject({ status_code: 307, status: 'pending' });
      expect(attempt.error).toMatch(/redirects are not followed/);
      expect(target.requests).toHaveLength(0);
    } finally {
      await target.close();
    }
  });
});
