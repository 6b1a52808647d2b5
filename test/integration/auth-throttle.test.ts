import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ env: { CDS_AUTH_FAILURES_PER_MINUTE: '5', CDS_TRUST_PROXY: '1' } });
});
afterAll(async () => {
  await t.close();
});

const guess = (i: number) => `cds_${String(i).padStart(40, '0')}`;
const from = (ip: string) => ({ 'X-Forwarded-For': ip });

it('failed authentications from one address are throttled with a 429 and Retry-After, before any key lookup', async () => {
  for (let i = 0; i < 5; i++) {
    expect((await t.api('/v1/meta', { key: guess(i), headers: from('203.0.113.7') })).status).toBe(401);
  }
  const throttled = await t.api('/v1/meta', { key: guess(99), headers: from('203.0.113.7') });
  expect(throttled.status).toBe(429);
  expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
  const body = (await throttled.json()) as { code: string; detail: string };
  expect(body.code).toBe('rate_limited');
  expect(body.detail).toMatch(/failed authentications from this address/);
  // a valid key from the throttled address waits too; another address is not affected
  const valid = await t.key();
  expect((await t.api('/v1/meta', { key: valid, headers: from('203.0.113.7') })).status).toBe(429);
  expect((await t.api('/v1/meta', { key: valid, headers: from('198.51.100.9') })).status).toBe(200);
  expect((await t.api('/v1/meta', { key: guess(100), headers: from('198.51.100.9') })).status).toBe(401);
});

it('successful requests are never counted as failures', async () => {
  const valid = await t.key();
  for (let i = 0; i < 12; i++)
    expect((await t.api('/v1/meta', { key: valid, headers: from('192.0.2.44') })).status).toBe(200);
});
