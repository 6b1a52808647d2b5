import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

interface Problem {
  code: string;
  status: number;
  platforms?: string[];
}
interface Signal {
  code: string;
  status: string;
  contribution: number;
  available: boolean;
  dates?: Array<{ date: string; explained: boolean }>;
}
interface Verification {
  id: string;
  handle: string;
  platform: string;
  authenticity_score: number;
  fraud_probability: number;
  fake_followers_pct: number;
  verdict: string;
  confidence: string;
  signals: Signal[];
  audience_quality: Record<string, number | null>;
  model_version: string;
  checked_at: string;
}

let t: TestApp;
let key: string;

beforeAll(async () => {
  t = await startTestApp({ creators: 1200 });
  key = await t.key();
});
afterAll(async () => {
  await t.close();
});

async function verify(body: unknown, k = key): Promise<Response> {
  return t.api('/v1/verify', { key: k, method: 'POST', json: body });
}

async function uniqueHandle(
  label: string,
  pattern: string | null = null,
): Promise<{ handle: string; platform: string }> {
  const row = await t.store.one<{ handle: string; platform: string }>(
    `SELECT c.handle, c.platform FROM creators c
    JOIN creator_labels l USING (creator_id)
    WHERE l.label = ? AND (?::VARCHAR IS NULL OR l.pattern = ?) AND l.pattern NOT IN ('no_audience', 'short_history', 'viral_jumps')
      AND (SELECT count(*) FROM creators d WHERE d.handle = c.handle) = 1 ORDER BY c.creator_id LIMIT 1`,
    [label, pattern, pattern],
  );
  if (!row) throw new Error(`no ${label} creator in the test store`);
  return row;
}

describe('POST /v1/verify', () => {
  it('answers the contract fields for a known handle and stores the result under an id', async () => {
    const { handle } = await uniqueHandle('authentic');
    const res = await verify({ handle: handle.toUpperCase() });
    expect(res.status).toBe(200);
    const v = (await res.json()) as Verification;
    expect(v.id).toMatch(/^ver_/);
    expect(v.handle).toBe(handle);
    expect(v.authenticity_score).toBeGreaterThanOrEqual(0);
    expect(v.authenticity_score).toBeLessThanOrEqual(100);
    expect(['authentic', 'questionable', 'suspicious']).toContain(v.verdict);
    expect(v.confidence).toBe('high');
    expect(v.signals.map((s) => s.code)).toEqual(
      expect.arrayContaining([
        'follower_spikes',
        'follower_jumps',
        'engagement_rate',
        'likes_comments_ratio',
        'following_ratio',
        'audience_quality',
        'audience_mass_followers',
        'audience_geography',
        'audience_language',
        'audience_foreign_block',
      ]),
    );
    expect(v.audience_quality.real_pct).toBeGreaterThan(0);
    expect(v.checked_at).toMatch(/Z$/);
    expect(v.model_version).toBe('auth-8.0');
    expect(v.fraud_probability).toBeGreaterThanOrEqual(0);
    expect(v.authenticity_score).toBeCloseTo(100 * (1 - v.fraud_probability), 0);
    expect(v.signals.every((s) => s.contribution >= 0)).toBe(true);
    expect(v.signals.filter((s) => s.available).map((s) => s.code)).toEqual(
      expect.arrayContaining(['follower_spikes', 'engagement_rate', 'audience_quality']),
    );
    const back = await t.api(`/v1/verifications/${v.id}`, { key });
    expect(back.status).toBe(200);
    expect(await back.json()).toEqual(v);
  });

  it('agrees with the score precomputed for search', async () => {
    const { handle, platform } = await uniqueHandle('authentic');
    const v = (await (await verify({ handle, platform })).json()) as Verification;
    const row = await t.store.one<{ s: number }>(
      'SELECT authenticity_score AS s FROM creators WHERE handle = ? AND platform = ?',
      [handle, platform],
    );
    expect(v.authenticity_score).toBe(row?.s);
  });

  it('flags a creator with bought followers as suspicious, naming the unexplained spike date', async () => {
    const { handle } = await uniqueHandle('bought_followers', 'bought_spike');
    const v = (await (await verify({ handle })).json()) as Verification;
    expect(v.verdict).toBe('suspicious');
    expect(v.fraud_probability).toBeGreaterThan(0.4);
    const spikes = v.signals.find((s) => s.code === 'follower_spikes');
    expect(spikes?.status).toBe('fail');
    expect(spikes?.dates?.some((d) => !d.explained && /^\d{4}-\d{2}-\d{2}$/.test(d.date))).toBe(true);
  });

  it('answers 404 creator_not_found for an unknown handle', async () => {
    const res = await verify({ handle: '@nobody_has_this_handle' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as Problem).code).toBe('creator_not_found');
  });

  it('answers 409 ambiguous_handle with the platforms when the handle is on several and none is given', async () => {
    const row = await t.store.one<{
      handle: string;
      platforms: string[];
    }>(`SELECT handle, list(platform ORDER BY platform) AS platforms
      FROM creators GROUP BY handle HAVING count(*) > 1 ORDER BY handle LIMIT 1`);
    expect(row).toBeDefined();
    const res = await verify({ handle: row!.handle });
    expect(res.status).toBe(409);
    const p = (await res.json()) as Problem;
    expect(p.code).toBe('ambiguous_handle');
    expect(p.platforms).toEqual(row!.platforms);
    const chosen = await verify({ handle: row!.handle, platform: row!.platforms[0] });
    expect(chosen.status).toBe(200);
    expect(((await chosen.json()) as Verification).platform).toBe(row!.platforms[0]);
  });

  it('rejects unknown body fields, a malformed handle and a key without the verify scope', async () => {
    const { handle } = await uniqueHandle('authentic');
    const bad = await verify({ handle, deep: true });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Problem).code).toBe('invalid_body');
    const malformed = await verify({ handle: '@no spaces!' });
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as Problem).code).toBe('invalid_body');
    const readOnly = await t.key({ scopes: ['read'] });
    const denied = await verify({ handle }, readOnly);
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as Problem).code).toBe('insufficient_scope');
  });
});

describe('GET /v1/verifications', () => {
  it('pages an account’s checks of a handle newest first, and hides them from other accounts', async () => {
    const mine = await t.key();
    const { handle } = await uniqueHandle('engagement_pod');
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(((await (await verify({ handle }, mine)).json()) as Verification).id);
    const first = (await (
      await t.api(`/v1/verifications?handle=${encodeURIComponent(handle)}&limit=2`, { key: mine })
    ).json()) as { data: Verification[]; next_cursor: string | null };
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    const second = (await (
      await t.api(`/v1/verifications?handle=${encodeURIComponent(handle)}&limit=2&cursor=${first.next_cursor}`, {
        key: mine,
      })
    ).json()) as { data: Verification[]; next_cursor: string | null };
    expect(second.next_cursor).toBeNull();
    expect([...first.data, ...second.data].map((v) => v.id).sort()).toEqual([...ids].sort());

    const other = await t.key();
    const theirs = (await (
      await t.api(`/v1/verifications?handle=${encodeURIComponent(handle)}`, { key: other })
    ).json()) as { data: unknown[] };
    expect(theirs.data).toHaveLength(0);
    const direct = await t.api(`/v1/verifications/${ids[0]}`, { key: other });
    expect(direct.status).toBe(404);
    expect(((await direct.json()) as Problem).code).toBe('not_found');
  });

  it('answers 400 for a cursor issued for another filter', async () => {
    const mine = await t.key();
    const { handle } = await uniqueHandle('mass_followers');
    for (let i = 0; i < 2; i++) await verify({ handle }, mine);
    const page = (await (await t.api(`/v1/verifications?limit=1`, { key: mine })).json()) as { next_cursor: string };
    const res = await t.api(`/v1/verifications?handle=${encodeURIComponent(handle)}&cursor=${page.next_cursor}`, {
      key: mine,
    });
    expect(res.status).toBe(400);
  });
});
