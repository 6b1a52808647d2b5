import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIMESTAMP_PATTERN } from '../../data/timestamps.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp({ creators: 100 });
  key = await t.key({ account: 'demo', scopes: ['read', 'lists:write', 'admin'] });
});
afterAll(async () => {
  await t?.close();
});

/** Every string member of a body whose name says it is a time (`*_at`, `timestamp`, `data_as_of.*`), with its path. */
function times(value: unknown, path = '', timeParent = false): Array<[string, string]> {
  if (Array.isArray(value)) return value.flatMap((v, i) => times(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const named = timeParent || k.endsWith('_at') || k === 'timestamp';
    if (typeof v === 'string') return named ? [[`${path}.${k}`, v] as [string, string]] : [];
    return times(v, `${path}.${k}`, k === 'data_as_of');
  });
}

async function body(path: string): Promise<unknown> {
  const res = await t.api(path, { key });
  expect(res.status, path).toBe(200);
  return res.json();
}

describe('API timestamps: RFC 3339, UTC, Z, milliseconds everywhere', () => {
  it('profiles, campaigns, lists and list members write every time the same way', async () => {
    const { creators } = (await body('/v1/creators/search?limit=1')) as {
      creators: Array<{ handle: string; platform: string }>;
    };
    const first = creators[0] ?? { handle: '@none', platform: 'instagram' };
    const list = (await (await t.api('/v1/lists', { key, method: 'POST', json: { name: 'times' } })).json()) as {
      id: string;
    };
    await t.api(`/v1/lists/${list.id}/creators`, {
      key,
      method: 'POST',
      json: { creators: [{ handle: first.handle, platform: first.platform }] },
    });
    const bodies = await Promise.all(
      [
        `/v1/creators/${encodeURIComponent(first.handle)}?platform=${first.platform}`,
        '/v1/campaigns?limit=3',
        `/v1/lists/${list.id}`,
        `/v1/lists/${list.id}/creators`,
      ].map(body),
    );
    const found = bodies.flatMap((b) => times(b));
    expect(found.map(([path]) => path)).toEqual(
      expect.arrayContaining([
        '.updated_at',
        '.recent_posts[0].posted_at',
        '.data_as_of.profile',
        '.data[0].updated_at',
        '.created_at',
        '.data[0].added_at',
      ]),
    );
    for (const [path, value] of found) expect(value, path).toMatch(TIMESTAMP_PATTERN);
  });

  it('keys (created, expiring, rotated) and usage (range and buckets) write every time the same way', async () => {
    const owner = await t.keyWithAccount({ scopes: ['read', 'keys:write'] });
    const made = (await (
      await t.api('/v1/keys', {
        key: owner.key,
        method: 'POST',
        json: { name: 'expiring', expires_at: '2099-01-01T00:00:00Z' },
      })
    ).json()) as { id: string; expires_at: string };
    expect(made.expires_at).toBe('2099-01-01T00:00:00.000Z');
    const rotate = await t.api(`/v1/keys/${made.id}/rotate`, {
      key: owner.key,
      method: 'POST',
      json: { grace_seconds: 60 },
    });
    expect(rotate.status).toBe(200);
    const [keys, usage] = await Promise.all([
      t.api('/v1/keys', { key: owner.key }),
      t.api('/v1/usage?granularity=hour', { key: owner.key }),
    ]);
    const found = times(await keys.json());
    expect(found.map(([path]) => path)).toEqual(
      expect.arrayContaining(['.data[0].created_at', '.data[1].expires_at', '.data[1].rotation.previous_expires_at']),
    );
    const report = (await usage.json()) as { from: string; to: string; buckets: Array<{ start: string }> };
    found.push(
      ['.from', report.from],
      ['.to', report.to],
      ...report.buckets.map((b, i): [string, string] => [`.buckets[${i}].start`, b.start]),
    );
    for (const [path, value] of found) expect(value, path).toMatch(TIMESTAMP_PATTERN);
  });
});
