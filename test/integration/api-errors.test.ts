import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, ERROR_CODES, ERROR_TYPE_BASE } from '../../server/http/error-catalogue.js';
import { revokeKey } from '../../data/keys/key.service.js';
import { markSeedDone, markSeedRunning } from '../../data/seed/seed-state.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { probeRoutes, probesCreated } from './api-probe-routes.js';

let t: TestApp;
let key: string;
const seen = new Set<string>();

interface Problem {
  type: string;
  title: string;
  status: number;
  code: string;
  detail: string;
  request_id: string;
  errors?: Array<{ param?: string; field?: string; message: string }>;
  platforms?: string[];
}

/** Sends a request and checks the problem+json shape of the answer; records the code. */
async function problem(
  path: string,
  init: Parameters<TestApp['api']>[1],
  code: string,
): Promise<{ res: Response; body: Problem }> {
  const res = await t.api(path, init);
  expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const body = (await res.json()) as Problem;
  expect(body.code).toBe(code);
  expect(res.status).toBe(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].status);
  expect(body.status).toBe(res.status);
  expect(body.type).toBe(ERROR_TYPE_BASE + code);
  expect(body.title).toBe(ERROR_CATALOGUE[code as keyof typeof ERROR_CATALOGUE].title);
  expect(body.request_id).toBe(res.headers.get('x-request-id'));
  seen.add(body.code);
  return { res, body };
}

beforeAll(async () => {
  t = await startTestApp({ creators: 300, env: { CDS_BODY_LIMIT: '1kb' }, deps: { extraRoutes: [probeRoutes] } });
  key = await t.key();
});
afterAll(async () => {
  await t?.close();
});

describe('every error code comes from a real request as RFC 9457 problem+json', () => {
  it('invalid_parameter names each unknown, repeated or out-of-range parameter at once', async () => {
    const { body } = await problem(
      '/v1/creators/search?foo=1&niche=food&niche=tech&limit=500&country=XX',
      { key },
      'invalid_parameter',
    );
    expect(body.errors?.map((e) => e.param).sort()).toEqual(['country', 'foo', 'limit', 'niche']);
    const bounds = await problem('/v1/creators/search?followers_min=10&followers_max=5', { key }, 'invalid_parameter');
    expect(bounds.body.errors).toEqual([{ param: 'followers_min', message: 'must be ≤ followers_max' }]);
    const taxonomy = await problem('/v1/creators/search?niche=food,knitting', { key }, 'invalid_parameter');
    expect(taxonomy.body.errors?.[0]?.message).toMatch(/knitting/);
  });

  it('invalid_parameter for a forged cursor names cursor', async () => {
    const { body } = await problem('/v1/creators/search?cursor=eyJzIjoieCJ9.AAAA', { key }, 'invalid_parameter');
    expect(body.errors).toEqual([expect.objectContaining({ param: 'cursor' })]);
  });

  it('invalid_body for malformed JSON, a scalar, unknown and invalid fields', async () => {
    await problem(
      '/v1/probes',
      { key, method: 'POST', body: '{"name": ', headers: { 'Content-Type': 'application/json' } },
      'invalid_body',
    );
    await problem(
      '/v1/probes',
      { key, method: 'POST', body: '"x"', headers: { 'Content-Type': 'application/json' } },
      'invalid_body',
    );
    const { body } = await problem(
      '/v1/probes',
      { key, method: 'POST', json: { name: '', colour: 'red', nested: { a: 1, b: 2 } } },
      'invalid_body',
    );
    expect(body.errors?.map((e) => e.field).sort()).toEqual(['colour', 'name', 'nested.b']);
  });

  it('invalid_body for a body nested too deep, with or without an Idempotency-Key (never a 500 from walking it)', async () => {
    const deep = `{"name":"x","tags":${'['.repeat(200)}${']'.repeat(200)}}`;
    for (const headers of [{}, { 'Idempotency-Key': 'deep-1' }] as Array<Record<string, string>>) {
      const { body } = await problem(
        '/v1/probes',
        { key, method: 'POST', body: deep, headers: { 'Content-Type': 'application/json', ...headers } },
        'invalid_body',
      );
      expect(body.detail).toMatch(/nested deeper than 32 levels/);
    }
  });

  it('invalid_body lists at most 50 offending fields and counts the rest; the detail stays bounded', async () => {
    const unknown = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`u${i}`, 0]));
    const { body } = await problem(
      '/v1/probes',
      { key, method: 'POST', json: { name: 'x', ...unknown } },
      'invalid_body',
    );
    expect(body.errors).toHaveLength(50);
    expect((body as unknown as { errors_omitted: number }).errors_omitted).toBe(50);
    expect(body.detail.length).toBeLessThanOrEqual(2100);
  });

  it('unauthorized with WWW-Authenticate for a missing, malformed, unknown, revoked or expired key', async () => {
    const missing = await problem('/v1/meta', {}, 'unauthorized');
    expect(missing.res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    await problem('/v1/meta', { headers: { Authorization: 'Basic abc' } }, 'unauthorized');
    await problem('/v1/meta', { key: 'cds_' + 'x'.repeat(40) }, 'unauthorized');
    const revoked = await t.keyWithAccount();
    expect((await t.api('/v1/meta', { key: revoked.key })).status).toBe(200);
    await revokeKey(t.state, revoked.keyId);
    await problem('/v1/meta', { key: revoked.key }, 'unauthorized');
    const expired = await t.key({ expires: new Date(Date.now() - 1000).toISOString() });
    await problem('/v1/meta', { key: expired }, 'unauthorized');
  });

  it('plan_required for a free account, insufficient_scope for a key without the scope', async () => {
    await problem('/v1/meta', { key: await t.key({ plan: 'free' }) }, 'plan_required');
    const { body } = await problem(
      '/v1/creators/search',
      { key: await t.key({ scopes: ['verify'] }) },
      'insufficient_scope',
    );
    expect(body.detail).toMatch(/read/);
  });

  it('not_found for an unknown route, creator_not_found for an unknown handle', async () => {
    await problem('/v1/nothing-here', { key }, 'not_found');
    await problem('/nothing', {}, 'not_found');
    await problem('/v1/creators/@nobody-at-all', { key }, 'creator_not_found');
  });

  it('method_not_allowed with Allow', async () => {
    const { res } = await problem('/v1/creators/search', { key, method: 'DELETE' }, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });

  it('ambiguous_handle lists the platforms', async () => {
    const row = await t.store.one<{ handle: string }>(
      'SELECT handle FROM creators GROUP BY handle HAVING count(*) > 1 LIMIT 1',
    );
    const { body } = await problem(`/v1/creators/${encodeURIComponent(row!.handle)}`, { key }, 'ambiguous_handle');
    expect(body.platforms?.length).toBeGreaterThan(1);
  });

  it('follower_sample_missing names the creators of an overlap without a sample', async () => {
    const rows = await t.store.all<{ creator_id: number; handle: string; platform: string }>(
      `SELECT c.creator_id, c.handle, c.platform FROM creators c SEMI JOIN follower_sketches s ON s.creator_id = c.creator_id
      ORDER BY c.creator_id DESC LIMIT 2`,
    );
    const [a, b] = rows as [(typeof rows)[number], (typeof rows)[number]];
    await t.store.run('DELETE FROM follower_sketches WHERE creator_id = ?', [b.creator_id]);
    const creators = [a, b].map((c) => ({ handle: c.handle, platform: c.platform }));
    const { body } = await problem(
      '/v1/audience-overlap',
      { key, method: 'POST', json: { creators } },
      'follower_sample_missing',
    );
    expect((body as Problem & { creators?: unknown }).creators).toEqual([creators[1]]);
  });

  it('conflict, limit_exceeded and unavailable from domain errors', async () => {
    await problem('/v1/probes/fail/conflict', { key }, 'conflict');
    await problem('/v1/probes/fail/limit', { key }, 'limit_exceeded');
    await problem('/v1/probes/fail/unavailable', { key }, 'unavailable');
  });

  it('idempotency_key_reused for the same key with another body; the same body replays', async () => {
    const headers = { 'Idempotency-Key': 'probe-key-1' };
    const before = probesCreated();
    const first = await t.api('/v1/probes', { key, method: 'POST', json: { name: 'a', tags: ['x'] }, headers });
    expect(first.status).toBe(201);
    const again = await t.api('/v1/probes', { key, method: 'POST', json: { tags: ['x'], name: 'a' }, headers });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await again.json()).toEqual(await first.json());
    expect(probesCreated()).toBe(before + 1);
    await problem('/v1/probes', { key, method: 'POST', json: { name: 'b' }, headers }, 'idempotency_key_reused');
  });

  it('payload_too_large above the body limit, unsupported_media_type for non-JSON', async () => {
    await problem('/v1/probes', { key, method: 'POST', json: { name: 'x'.repeat(2000) } }, 'payload_too_large');
    await problem(
      '/v1/probes',
      { key, method: 'POST', body: 'name=x', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } },
      'unsupported_media_type',
    );
  });

  it('internal says nothing internal', async () => {
    const { body } = await problem('/v1/probes/fail/crash', { key }, 'internal');
    expect(JSON.stringify(body)).not.toMatch(/hunter2|app\.ts|secret/);
  });

  it('unavailable from /readyz when the store is closed', async () => {
    const other = await startTestApp();
    try {
      expect((await other.api('/readyz')).status).toBe(200);
      await other.store.close();
      const res = await other.api('/readyz');
      expect(res.status).toBe(503);
      expect(((await res.json()) as Problem).code).toBe('unavailable');
    } finally {
      await other.close();
    }
  });

  it('unavailable from /readyz while a demo seed is half-way, ready again once it is done', async () => {
    const other = await startTestApp();
    try {
      await markSeedRunning(other.store, 1000, 42);
      const res = await other.api('/readyz');
      expect(res.status).toBe(503);
      expect(((await res.json()) as Problem).detail).toMatch(/being seeded/);
      await markSeedDone(other.store);
      expect((await other.api('/readyz')).status).toBe(200);
    } finally {
      await other.close();
    }
  });

  it('rate_limited (the exhaustion test is in api-platform.test.ts; here one 429 for the catalogue)', async () => {
    const limited = await startTestApp({ testStore: t, planLimits: { entry: { requestsPerMinute: 1 } } });
    try {
      const k = await limited.key();
      expect((await limited.api('/v1/meta', { key: k })).status).toBe(200);
      const res = await limited.api('/v1/meta', { key: k });
      expect(res.status).toBe(429);
      expect(((await res.json()) as Problem).code).toBe('rate_limited');
      seen.add('rate_limited');
    } finally {
      await limited.close();
    }
  });

  it('gone for the download of an expired export', async () => {
    const created = await t.api('/v1/exports', {
      key,
      method: 'POST',
      json: { source: 'creators', handles: ['@nobody'], format: 'csv' },
    });
    expect(created.status).toBe(202);
    const { id } = (await created.json()) as { id: string };
    await t.state.run(
      `UPDATE exports SET status = 'succeeded', expires_at = TIMESTAMP '2000-01-01' WHERE export_id = ?`,
      [id],
    );
    const { body } = await problem(`/v1/exports/${id}/download`, { key }, 'gone');
    expect(body.detail).toMatch(/expired/);
  });

  it('all codes of the catalogue were produced above', () => {
    expect([...seen].sort()).toEqual([...ERROR_CODES].sort());
  });
});
