import { describe, expect, it } from 'vitest';
import { startReceiver } from '../helpers/receiver.js';
import { addEvent, addSubscription, attemptsOfEvent, eventually } from './webhook-fixtures.js';
import { useDeliveryHarness } from './webhook-harness.js';

const fx = useDeliveryHarness();

async function onlyAttempt(eventId: string) {
  await eventually(async () => (await attemptsOfEvent(fx.state, eventId)) === 1);
  return (await fx.state.one<{ error: string; status: string; status_code: number | null }>(
    `SELECT a.error, d.status, a.status_code FROM delivery_attempts a JOIN deliveries d USING (delivery_id) WHERE d.event_id = ?`,
    [eventId],
  ))!;
}

describe('webhook SSRF guard at delivery time', () => {
  it('a host name resolving to loopback (localhost, not allow-listed) is refused after DNS, without connecting', async () => {
    await addSubscription(fx.state, { account_id: 'acct_a', url: `https://localhost:${fx.receiver.port}/hook` });
    const eventId = await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
    fx.startWorker();
    const attempt = await onlyAttempt(eventId);
    expect(attempt.error).toMatch(/^refused: the destination is not allowed/);
    expect(attempt.error).not.toMatch(/127\.0\.0\.1|::1\b/);
    expect(attempt.status).toBe('failed');
    expect(fx.receiver.requests).toHaveLength(0);
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
    await addSubscription(fx.state, { account_id: 'acct_a', url });
    const eventId = await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
    fx.startWorker();
    const attempt = await onlyAttempt(eventId);
    expect(attempt.error).toMatch(/^refused: /);
    expect(attempt.status_code).toBeNull();
  });

  it('a redirect is not followed', async () => {
    const target = await startReceiver();
    try {
      fx.receiver.respond(() => ({ status: 307, headers: { location: target.url } }));
      await addSubscription(fx.state, { account_id: 'acct_a', url: fx.receiver.url });
      const eventId = await addEvent(fx.state, { type: 'export.completed', account_id: 'acct_a' });
      fx.startWorker();
      const attempt = await onlyAttempt(eventId);
      expect(attempt).toMatchObject({ status_code: 307, status: 'pending' });
      expect(attempt.error).toMatch(/redirects are not followed/);
      expect(target.requests).toHaveLength(0);
    } finally {
      await target.close();
    }
  });
});
