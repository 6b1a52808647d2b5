import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ApiKeyView as KeyBody } from '../../data/keys/account-keys.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t.close();
});

interface Problem {
  code: string;
  errors?: Array<{ field?: string; message: string }>;
}

/** An owner key (keys:write) that expires in an hour. */
async function expiringOwner(): Promise<{ key: string; expiresAt: number }> {
  const before = Date.now();
  const owner = await t.keyWithAccount({ scopes: ['read', 'keys:write'], expires: '1h' } as Parameters<
    TestApp['keyWithAccount']
  >[0]);
  const keys = (await (await t.api('/v1/keys', { key: owner.key })).json()) as { data: KeyBody[] };
  const expiresAt = Date.parse(keys.data.find((k) => k.id === owner.keyId)?.expires_at ?? '');
  expect(expiresAt).toBeGreaterThan(before);
  return { key: owner.key, expiresAt };
}

it('a key that expires gives a key it creates its own expiry when none is asked for (never a longer life)', async () => {
  const owner = await expiringOwner();
  const res = await t.api('/v1/keys', { key: owner.key, method: 'POST', json: { name: 'child' } });
  expect(res.status).toBe(201);
  expect(Date.parse(((await res.json()) as KeyBody).expires_at ?? '')).toBe(owner.expiresAt);
});

it('a key cannot grant an expiry later than its own (400 naming expires_at); an earlier one is granted', async () => {
  const owner = await expiringOwner();
  const later = new Date(owner.expiresAt + 3_600_000).toISOString();
  const refused = await t.api('/v1/keys', {
    key: owner.key,
    method: 'POST',
    json: { name: 'longer', expires_at: later },
  });
  expect(refused.status).toBe(400);
  const problem = (await refused.json()) as Problem;
  expect(problem.code).toBe('invalid_body');
  expect(problem.errors?.[0]).toMatchObject({ field: 'expires_at' });
  expect(problem.errors?.[0]?.message).toMatch(/longer life than its own/);
  const earlier = new Date(owner.expiresAt - 1_800_000).toISOString();
  const granted = await t.api('/v1/keys', {
    key: owner.key,
    method: 'POST',
    json: { name: 'shorter', expires_at: earlier },
  });
  expect(granted.status).toBe(201);
  expect(Date.parse(((await granted.json()) as KeyBody).expires_at ?? '')).toBe(Date.parse(earlier));
});

it('a key that never expires grants any expiry, or none', async () => {
  const owner = await t.keyWithAccount({ scopes: ['read', 'keys:write'] });
  const res = await t.api('/v1/keys', { key: owner.key, method: 'POST', json: { name: 'forever' } });
  expect(((await res.json()) as KeyBody).expires_at).toBeNull();
});

it('impossible dates are refused, never shifted: expires_at 2027-02-30, usage to=2026-11-31, campaigns from=2026-02-30', async () => {
  const owner = await t.keyWithAccount({ scopes: ['read', 'keys:write'] });
  const key = await t.api('/v1/keys', {
    key: owner.key,
    method: 'POST',
    json: { name: 'feb', expires_at: '2027-02-30T00:00:00Z' },
  });
  expect(key.status).toBe(400);
  expect(((await key.json()) as Problem).errors?.[0]).toMatchObject({ field: 'expires_at' });
  for (const [path, param] of [
    ['/v1/usage?to=2026-11-31', 'to'],
    ['/v1/usage?from=2026-02-30T10:00:00Z', 'from'],
    ['/v1/campaigns?from=2026-02-30', 'from'],
  ] as const) {
    const res = await t.api(path, { key: owner.key });
    expect(res.status, path).toBe(400);
    expect(((await res.json()) as { errors?: Array<{ param?: string }> }).errors?.[0]?.param, path).toBe(param);
  }
});
