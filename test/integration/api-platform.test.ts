import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeExpired } from '../../server/http/idempotency.queries.js';
import { MemoryRateLimiter } from '../../server/http/rate-limiter.js';
import { IDEMPOTENCY_TTL_MS } from '../../server/middleware/idempotency.middleware.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { probeRoutes } from './api-probe-routes.js';
import { revokeKey } from '../../data/keys/key.service.js';
import { setAccountPlan } from '../../data/plans/plan-admin.service.js';
import { KEYS_RECHECK_MS } from '../../server/http/principal-cache.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ creators: 200, deps: { extraRoutes: [probeRoutes] } });
});
afterAll(async () => {
  await t?.close();
});

describe('request ids and logs', () => {
  it('echoes a sane X-Request-Id and replaces an insane one', async () => {
    const sane = await t.api('/healthz', { headers: { 'X-Request-Id': 'abc-123.def' } });
    expect(sane.headers.get('x-request-id')).toBe('abc-123.def');
    const insane = await t.api('/healthz', { headers: { 'X-Request-Id': 'bad id with spaces <script>' } });
    expect(insane.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]+$/);
    const none = await t.api('/healthz');
    expect(none.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('rate limits', () => {
  it('every /v1 response carries RateLimit-Policy and RateLimit; usage shows in /v1/account', async () => {
    const key = await t.key();
    const first = await t.api('/v1/meta', { key });
    expect(first.headers.get('ratelimit-policy')).toBe('"minute";q=120;w=60');
    expect(first.headers.get('ratelimit')).toMatch(/^"minute";r=119;t=\d+$/);
    const bad = await t.api('/v1/meta?nope=1', { key });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('ratelimit')).toMatch(/^"minute";r=118;/);
    const account = (await (await t.api('/v1/account', { key })).json()) as {
      usage: { requests: number; remaining: number };
      plan: string;
      limits: { requests_per_minute: number };
    };
    expect(account.usage).toEqual(expect.objectContaining({ requests: 3, remaining: 117 }));
    expect(account.limits.requests_per_minute).toBe(120);
    expect(account.plan).toBe('entry');
  });

  it('429 with Retry-After once the plan limit is spent, per account; then one request per 60 s ÷ limit, the whole limit after a minute idle', async () => {
    let now = Date.parse('2026-11-21T10:00:00.000Z');
    const limited = await startTestApp({
      testStore: t,
      planLimits: { entry: { requestsPerMinute: 3 } },
      deps: { rateLimiter: new MemoryRateLimiter({ now: () => now }) },
    });
    try {
      const a = await limited.key();
      const b = await limited.key();
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await limited.api('/v1/meta', { key: a })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      now += 15_000;
      const over = await limited.api('/v1/meta', { key: a });
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toBe('5');
      expect(over.headers.get('ratelimit')).toBe('"minute";r=0;t=5');
      expect(over.headers.get('ratelimit-policy')).toBe('"minute";q=3;w=60');
      expect((await limited.api('/v1/meta', { key: b })).status).toBe(200);
      now += 5_000;
      const next = await limited.api('/v1/meta', { key: a });
      expect(next.status).toBe(200);
      expect(next.headers.get('ratelimit')).toBe('"minute";r=0;t=20');
      now += 60_000;
      const rested = await limited.api('/v1/meta', { key: a });
      expect(rested.status).toBe(200);
      expect(rested.headers.get('ratelimit')).toBe('"minute";r=2;t=20');
    } finally {
      await limited.close();
    }
  });
});

describe('tenant isolation', () => {
  it('/v1/account shows only the caller’s own account and key', async () => {
    const a = await t.keyWithAccount();
    const b = await t.keyWithAccount();
    const bodyA = (await (await t.api('/v1/account', { key: a.key })).json()) as {
      account_id: string;
      key: { key_id: string };
    };
    const bodyB = (await (await t.api('/v1/account', { key: b.key })).json()) as {
      account_id: string;
      key: { key_id: string };
    };
    expect([bodyA.account_id, bodyA.key.key_id]).toEqual([a.accountId, a.keyId]);
    expect([bodyB.account_id, bodyB.key.key_id]).toEqual([b.accountId, b.keyId]);
  });

  it('an Idempotency-Key of one account never replays another account’s response', async () => {
    const a = await t.keyWithAccount();
    const b = await t.keyWithAccount();
    const headers = { 'Idempotency-Key': 'shared-key' };
    const ra = (await (
      await t.api('/v1/probes', { key: a.key, method: 'POST', json: { name: 'same' }, headers })
    ).json()) as { account_id: string };
    const resB = await t.api('/v1/probes', { key: b.key, method: 'POST', json: { name: 'same' }, headers });
    expect(resB.headers.get('idempotent-replayed')).toBeNull();
    const rb = (await resB.json()) as { account_id: string };
    expect([ra.account_id, rb.account_id]).toEqual([a.accountId, b.accountId]);
  });

  it('a revoked key stops working on the very next request', async () => {
    const { key, keyId } = await t.keyWithAccount();
    expect((await t.api('/v1/meta', { key })).status).toBe(200);
    await revokeKey(t.state, keyId);
    expect((await t.api('/v1/meta', { key })).status).toBe(401);
  });

  it('a revocation made outside this process (another replica, plain SQL) is seen once the key recheck interval has passed', async () => {
    const clock = { ms: Date.now() };
    const replica = await startTestApp({ testStore: t, deps: { extraRoutes: [probeRoutes], now: () => clock.ms } });
    try {
      const { key, keyId } = await t.keyWithAccount();
      expect((await replica.api('/v1/meta', { key })).status).toBe(200);
      await t.state.run('UPDATE api_keys SET revoked_at = now()::TIMESTAMP WHERE key_id = ?', [keyId]);
      // within the interval the cached key still answers: the interval is what the revocation waits for
      clock.ms += KEYS_RECHECK_MS - 1;
      expect((await replica.api('/v1/meta', { key })).status).toBe(200);
      clock.ms += 1;
      expect((await replica.api('/v1/meta', { key })).status).toBe(401);
    } finally {
      await replica.close();
    }
  });
});

describe('key cache', () => {
  it('a plan change takes effect on the very next request', async () => {
    const { key, accountId } = await t.keyWithAccount();
    expect((await t.api('/v1/meta', { key })).status).toBe(200);
    await setAccountPlan(t.state, accountId, 'free');
    expect((await t.api('/v1/meta', { key })).status).toBe(403);
    await setAccountPlan(t.state, accountId, 'enterprise');
    const res = await t.api('/v1/meta', { key });
    expect(res.headers.get('ratelimit-policy')).toBe('"minute";q=1200;w=60');
  });

  it('a key stops working at its expiry time without any write', async () => {
    const clock = { ms: Date.now() };
    const replica = await startTestApp({ testStore: t, deps: { extraRoutes: [probeRoutes], now: () => clock.ms } });
    try {
      const { key, keyId } = await t.keyWithAccount();
      const expiry = clock.ms + 1500;
      await t.state.run('UPDATE api_keys SET expires_at = ?::TIMESTAMP WHERE key_id = ?', [
        new Date(expiry).toISOString().slice(0, 23).replace('T', ' '),
        keyId,
      ]);
      expect((await replica.api('/v1/meta', { key })).status).toBe(200);
      // the app's clock reaches the expiry, with no write to the key in between
      clock.ms = expiry - 1;
      expect((await replica.api('/v1/meta', { key })).status).toBe(200);
      clock.ms = expiry;
      expect((await replica.api('/v1/meta', { key })).status).toBe(401);
    } finally {
      await replica.close();
    }
  });
});

describe('idempotency', () => {
  it('requests with one key in flight together run the handler once', async () => {
    const key = await t.key();
    const headers = { 'Idempotency-Key': 'concurrent-1' };
    const answers = await Promise.all(
      [1, 2, 3].map(() =>
        t
          .api('/v1/probes', { key, method: 'POST', json: { name: 'c' }, headers })
          .then(async (r) => ((await r.json()) as { id: string }).id),
      ),
    );
    expect(new Set(answers).size).toBe(1);
  });

  it('after 24 hours a key is free again, and the purge deletes its record', async () => {
    const { key, accountId } = await t.keyWithAccount();
    const headers = { 'Idempotency-Key': 'old-key' };
    expect((await t.api('/v1/probes', { key, method: 'POST', json: { name: 'first' }, headers })).status).toBe(201);
    const dayAgo = new Date(Date.now() - 25 * 3600_000).toISOString().slice(0, 23).replace('T', ' ');
    await t.state.run('UPDATE idempotency_keys SET created_at = ?::TIMESTAMP WHERE account_id = ?', [
      dayAgo,
      accountId,
    ]);
    const reused = await t.api('/v1/probes', { key, method: 'POST', json: { name: 'second' }, headers });
    expect(reused.status).toBe(201);
    expect(reused.headers.get('idempotent-replayed')).toBeNull();
    await t.state.run('UPDATE idempotency_keys SET created_at = ?::TIMESTAMP WHERE account_id = ?', [
      dayAgo,
      accountId,
    ]);
    expect(await purgeExpired(t.state, Date.now() - IDEMPOTENCY_TTL_MS)).toBeGreaterThanOrEqual(1);
    expect(
      (await t.state.one<{ n: number }>('SELECT count(*) AS n FROM idempotency_keys WHERE account_id = ?', [accountId]))
        ?.n,
    ).toBe(0);
  });

  it('rejects an Idempotency-Key that is not printable ASCII', async () => {
    const key = await t.key();
    const res = await t.api('/v1/probes', {
      key,
      method: 'POST',
      json: { name: 'c' },
      headers: { 'Idempotency-Key': 'x'.repeat(300) },
    });
    expect(res.status).toBe(400);
  });
});

describe('operations endpoints', () => {
  it('/healthz, /readyz and /v1/openapi.json need no key; /metrics counts requests per route', async () => {
    expect((await t.api('/healthz')).status).toBe(200);
    expect(await (await t.api('/readyz')).json()).toEqual({ status: 'ready' });
    expect((await t.api('/v1/openapi.json')).status).toBe(200);
    const key = await t.key();
    await t.api('/v1/creators/search?limit=1', { key });
    const metrics = await (await t.api('/metrics')).text();
    expect(metrics).toMatch(/cds_http_requests_total\{method="GET",route="\/v1\/creators\/search",status="200"\} \d+/);
    expect(metrics).toMatch(
      /cds_http_request_duration_seconds_bucket\{le="0.05",method="GET",route="\/v1\/creators\/search"\}/,
    );
  });

  it('/docs serves the reference page and its assets from our own origin, and no other site may frame it', async () => {
    const res = await t.api('/docs');
    expect(res.headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    const page = await res.text();
    const assets = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets) {
      expect(asset.startsWith('/docs/assets/'), asset).toBe(true);
      const res = await t.api(asset);
      expect(res.status, asset).toBe(200);
      expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(10);
    }
    expect(await (await t.api('/docs/assets/init.js')).text()).toContain('/v1/openapi.json');
  });

  it('an asset name that is an object-prototype key is a 404, not a 500 (found by the fuzz drill)', async () => {
    for (const name of ['__proto__', 'constructor', 'toString']) {
      expect((await t.api(`/docs/assets/${name}`)).status, name).toBe(404);
    }
  });

  it('plain HTTP answers carry no HSTS', async () => {
    expect((await t.api('/healthz')).headers.get('strict-transport-security')).toBeNull();
  });
});
