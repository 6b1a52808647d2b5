import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../server/http/rate-limiter.js';
import type { UsageReport as Usage } from '../../data/usage/usage.service.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { creatorWithUniqueHandle } from '../helpers/creators.js';

let t: TestApp;
/** A second API process on the same state, its entry plan allowing 4 requests a minute (an in-memory limiter in both modes). */
let limited: TestApp;

beforeAll(async () => {
  t = await startTestApp({ creators: 200 });
  limited = await startTestApp({
    testStore: t,
    planLimits: { entry: { requestsPerMinute: 4 } },
    deps: { rateLimiter: new MemoryRateLimiter() },
  });
});

afterAll(async () => {
  await limited.close();
  await t.close();
});

async function usage(key: string, query = ''): Promise<Usage> {
  const res = await t.api(`/v1/usage${query}`, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Usage;
}

describe('GET /v1/usage', () => {
  it('counts every authenticated request by status class, key and operation, 404s and 429s included', async () => {
    const a = await t.keyWithAccount();
    const statuses: number[] = [];
    for (const path of ['/v1/meta', '/v1/meta', '/v1/meta', '/v1/lists/lst_missing', '/v1/meta']) {
      statuses.push((await limited.api(path, { key: a.key })).status);
    }
    expect(statuses).toEqual([200, 200, 200, 404, 429]);
    expect((await limited.api('/v1/meta', { key: 'cds_unknownunknownunknownunknownunknown' })).status).toBe(401);
    await limited.app.flushUsage();
    const u = await usage(a.key, '?granularity=hour');
    expect(u.granularity).toBe('hour');
    expect(u.buckets).toHaveLength(24);
    expect(u.totals).toEqual({
      requests: 5,
      '2xx': 3,
      '3xx': 0,
      '4xx': 2,
      '5xx': 0,
      rate_limited: 1,
      verify_calls: 0,
      audience_overlaps: 0,
      export_rows: 0,
      export_bytes: 0,
      contact_reveals: 0,
    });
    expect(u.buckets.at(-1)).toMatchObject({ requests: 5, '2xx': 3, '4xx': 2, rate_limited: 1 });
    expect(u.by_key).toEqual([{ key_id: a.keyId, name: 'owner key', requests: 5, rate_limited: 1 }]);
    expect(u.by_operation).toEqual([
      { operation: 'getMeta', requests: 4, '2xx': 3, '3xx': 0, '4xx': 1, '5xx': 0 },
      { operation: 'getList', requests: 1, '2xx': 0, '3xx': 0, '4xx': 1, '5xx': 0 },
    ]);
    expect(u.plan).toEqual({
      name: 'entry',
      limits: {
        requests_per_minute: 120,
        export_rows: 10_000,
        webhook_subscriptions: 5,
        lists: 50,
        creators_per_list: 5_000,
        exports_in_flight: 5,
        export_storage_bytes: 1024 ** 3,
      },
    });
  });

  it('adds up counts that several API processes flush for the same key and minute, and counts verify calls', async () => {
    const a = await t.keyWithAccount();
    expect(
      (await t.api('/v1/verify', { key: a.key, method: 'POST', json: { handle: 'nobody-at-all-here' } })).status,
    ).toBe(404);
    const creator = (await (await t.api('/v1/creators/search?limit=1', { key: a.key })).json()) as {
      creators: Array<{ handle: string; platform: string }>;
    };
    const first = creator.creators[0];
    expect(
      (
        await t.api('/v1/verify', {
          key: a.key,
          method: 'POST',
          json: { handle: first?.handle, platform: first?.platform },
        })
      ).status,
    ).toBe(200);
    expect((await limited.api('/v1/creators/search?limit=1', { key: a.key })).status).toBe(200);
    // one after the other: on the embedded store two writers of one row at the same instant conflict (the loser keeps its counts for its next flush)
    await t.app.flushUsage();
    await limited.app.flushUsage();
    const u = await usage(a.key);
    expect(u.totals).toMatchObject({ requests: 4, '2xx': 3, '4xx': 1, verify_calls: 1 });
    expect(u.by_operation.find((o) => o.operation === 'searchCreators')).toMatchObject({ requests: 2, '2xx': 2 });
    expect(u.by_operation.find((o) => o.operation === 'verifyCreator')).toMatchObject({
      requests: 2,
      '2xx': 1,
      '4xx': 1,
    });
  });

  it('counts each contact reveal in its bucket from the reveals log, and no failed reveal', async () => {
    const a = await t.keyWithAccount({ plan: 'enterprise' });
    const creator = await creatorWithUniqueHandle(t.store);
    await t.store.run(`INSERT INTO creator_contacts VALUES (?, 'usage@example.com', NULL) ON CONFLICT DO NOTHING`, [
      creator.creator_id,
    ]);
    const contacts = `/v1/creators/${encodeURIComponent(creator.handle)}/contacts?platform=${creator.platform}`;
    for (let i = 0; i < 2; i++) expect((await t.api(contacts, { key: a.key })).status).toBe(200);
    expect((await t.api('/v1/creators/%40nobody-at-all-here/contacts', { key: a.key })).status).toBe(404);
    await t.app.flushUsage();
    const u = await usage(a.key, '?granularity=hour');
    expect(u.totals).toMatchObject({ requests: 3, '2xx': 2, '4xx': 1, contact_reveals: 2 });
    expect(u.buckets.at(-1)).toMatchObject({ contact_reveals: 2 });
    expect(u.by_operation.find((o) => o.operation === 'revealContacts')).toMatchObject({
      requests: 3,
      '2xx': 2,
      '4xx': 1,
    });
    const other = await t.keyWithAccount({ plan: 'enterprise' });
    expect((await usage(other.key)).totals.contact_reveals).toBe(0);
  });

  it("shows only the caller's account, every bucket of the range with zeros, and the last 30 days by default", async () => {
    const quiet = await t.keyWithAccount();
    const u = await usage(quiet.key);
    expect(u.granularity).toBe('day');
    expect(u.buckets).toHaveLength(30);
    expect(u.buckets.every((b) => b.requests === 0)).toBe(true);
    expect(u.by_key).toEqual([]);
    expect(Date.parse(u.to) - Date.parse(u.from)).toBe(30 * 86_400_000);
    const ranged = await usage(quiet.key, '?from=2026-01-01&to=2026-01-03');
    expect(ranged.buckets.map((b) => b.start)).toEqual([
      '2026-01-01T00:00:00.000Z',
      '2026-01-02T00:00:00.000Z',
      '2026-01-03T00:00:00.000Z',
    ]);
  });

  it("refuses a range past the granularity's bound, an end before the start and a malformed time, naming the parameter", async () => {
    const { key } = await t.keyWithAccount();
    const cases: Array<[string, string]> = [
      ['?granularity=hour&from=2026-01-01&to=2026-01-20', 'from'],
      ['?from=2025-01-01&to=2026-01-01', 'from'],
      ['?from=2026-02-01&to=2026-01-01', 'to'],
      ['?from=yesterday', 'from'],
    ];
    for (const [query, param] of cases) {
      const res = await t.api(`/v1/usage${query}`, { key });
      expect(res.status, query).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'invalid_parameter', errors: [{ param }] });
    }
  });
});
