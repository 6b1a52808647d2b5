import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CreatorProfile as Profile } from '../../data/creators/creator-profile.mapper.js';
import { TIMESTAMP_PATTERN } from '../../data/timestamps.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { creatorWithUniqueHandle, type CreatorRef } from '../helpers/creators.js';
import { setContentLists, TEST_AS_OF } from '../helpers/store.js';

let t: TestApp;
let key: string;
let single: CreatorRef;

beforeAll(async () => {
  t = await startTestApp({ creators: 400 });
  key = await t.key();
  single = await creatorWithUniqueHandle(t.store);
});
afterAll(async () => {
  await t?.close();
});

async function profile(path: string): Promise<Profile> {
  const res = await t.api(path, { key });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Profile;
}

describe('GET /v1/creators/{handle}', () => {
  it('accepts @name, %40name and name in any case', async () => {
    const bare = single.handle.slice(1);
    for (const form of [single.handle, `%40${bare}`, bare, bare.toUpperCase()]) {
      const p = await profile(`/v1/creators/${form === single.handle ? encodeURIComponent(form) : form}`);
      expect([p.handle, p.platform]).toEqual([single.handle, single.platform]);
    }
  });

  it('carries audience breakdowns, growth with 365 daily points, recent posts and data_as_of', async () => {
    const p = await profile(`/v1/creators/${encodeURIComponent(single.handle)}`);
    const audience = await t.store.all<{ dimension: string; key: string; pct: number }>(
      'SELECT dimension, key, pct FROM audience WHERE creator_id = ?',
      [single.creator_id],
    );
    const dim = (d: string): Map<string, number> =>
      new Map(audience.filter((a) => a.dimension === d).map((a) => [a.key, a.pct]));
    expect(new Map(p.audience.countries.map((c) => [c.code, c.pct]))).toEqual(dim('country'));
    expect(new Map(p.audience.cities.map((c) => [c.name, c.pct]))).toEqual(dim('city'));
    expect(p.audience.cities.find((c) => c.name === p.city)?.country ?? p.country).toBe(p.country);
    expect(p.audience.genders.map((g) => g.gender).sort()).toEqual(['female', 'male', 'other']);
    expect(p.audience.ages.map((a) => a.range)).toEqual(['13-17', '18-24', '25-34', '35-44', '45-54', '55-64', '65+']);
    expect(p.audience.languages.length).toBeGreaterThan(0);
    expect(p.audience.interests.length).toBeGreaterThan(0);
    expect(p.audience.quality.real_pct).toBe(dim('quality').get('real'));
    expect(p.growth.history).toHaveLength(365);
    expect(p.growth.history.at(-1)).toEqual(expect.objectContaining({ date: TEST_AS_OF, followers: p.followers }));
    const d30 = p.growth.history.at(-31)!;
    expect(p.growth.followers_30d).toBe(p.followers - d30.followers);
    expect(p.growth.history.at(-1)!.engagement_rate).toEqual(expect.any(Number));
    expect(p.recent_posts).toHaveLength(12);
    const times = p.recent_posts.map((x) => x.posted_at);
    expect(times).toEqual([...times].sort().reverse());
    for (const time of [p.data_as_of.profile, p.data_as_of.audience, p.data_as_of.posts])
      expect(time).toMatch(TIMESTAMP_PATTERN);
    expect(Object.keys(p.authenticity).sort()).toEqual(['checked_at', 'fake_followers_pct', 'score', 'verdict']);
  });

  it('shows the authenticity block from the creator row once scored', async () => {
    await t.store.run(
      `UPDATE creators SET authenticity_score = 91.5, fake_followers_pct = 3.2, authenticity_verdict = 'authentic',
      authenticity_checked_at = TIMESTAMP '2026-11-20 10:00:00' WHERE creator_id = ?`,
      [single.creator_id],
    );
    const p = await profile(`/v1/creators/${encodeURIComponent(single.handle)}`);
    expect(p.authenticity).toEqual({
      score: 91.5,
      fake_followers_pct: 3.2,
      verdict: 'authentic',
      checked_at: '2026-11-20T10:00:00.000Z',
    });
  });

  it('picks the platform on a shared handle with platform=, and 409 names the platforms without it', async () => {
    const shared = await t.store.all<{ handle: string; platform: string }>(
      'SELECT handle, platform FROM creators WHERE handle = (SELECT handle FROM creators GROUP BY handle HAVING count(*) > 1 ORDER BY handle LIMIT 1)',
    );
    const res = await t.api(`/v1/creators/${encodeURIComponent(shared[0]!.handle)}`, { key });
    expect(res.status).toBe(409);
    expect(((await res.json()) as { platforms: string[] }).platforms.sort()).toEqual(
      shared.map((s) => s.platform).sort(),
    );
    for (const s of shared) {
      const p = await profile(`/v1/creators/${encodeURIComponent(s.handle)}?platform=${s.platform}`);
      expect(p.platform).toBe(s.platform);
    }
    const wrong = await t.api(
      `/v1/creators/${encodeURIComponent(single.handle)}?platform=${single.platform === 'x' ? 'tiktok' : 'x'}`,
      { key },
    );
    expect(wrong.status).toBe(404);
  });

  it('answers 304 to If-None-Match with the current ETag, 200 once the data changed', async () => {
    const path = `/v1/creators/${encodeURIComponent(single.handle)}`;
    const first = await t.api(path, { key });
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^".+"$/);
    const again = await t.api(path, { key, headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    await t.store.run('UPDATE creators SET bio = ? WHERE creator_id = ?', ['a new bio', single.creator_id]);
    const changed = await t.api(path, { key, headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it("carries the content block counted from the creator's own stored posts, its linked accounts and has_contact, never the contact", async () => {
    const other = await t.store.one<{ creator_id: number }>(
      'SELECT creator_id FROM creators WHERE creator_id <> ? ORDER BY creator_id LIMIT 1',
      [single.creator_id],
    );
    // only these posts, links and contact: whatever the demo world gave the creator is cleared first
    for (const table of ['posts', 'linked_accounts', 'creator_contacts'])
      await t.store.run(`DELETE FROM ${table} WHERE creator_id = ?`, [single.creator_id]);
    // twelve tagged hashtags so the top 10 cuts ties by tag; another creator's posts must not count
    const tags = Array.from({ length: 12 }, (_, i) => `tag${String(i).padStart(2, '0')}`);
    const rows: Array<[number, string, string, string, string[], string[], string | null, boolean, number | null]> = [
      [
        single.creator_id,
        'c-1',
        '2026-11-20 10:00:00',
        'reel',
        ['mealprep', ...tags],
        ['nike', 'adidas'],
        '@nike',
        true,
        1000,
      ],
      [single.creator_id, 'c-2', '2026-11-19 10:00:00', 'reel', ['mealprep', 'tag11'], ['nike'], '@nike', true, 3000],
      [
        single.creator_id,
        'c-3',
        '2026-11-18 10:00:00',
        'short',
        ['mealprep', 'tag10'],
        ['adidas'],
        '@adidas',
        true,
        null,
      ],
      [single.creator_id, 'c-4', '2026-11-17 10:00:00', 'live', ['vegan'], [], null, false, null],
      [
        other!.creator_id,
        'c-5',
        '2026-11-17 10:00:00',
        'reel',
        ['vegan', 'vegan2', 'vegan3'],
        ['puma'],
        '@puma',
        true,
        5,
      ],
    ];
    for (const [id, post, at, type, hashtags, mentions, brand, sponsored, views] of rows) {
      await t.store.run(
        `INSERT INTO posts (creator_id, post_id, posted_at, type, likes, comments, views, shares, sponsored, caption, brand, hashtags, mentions)
        VALUES (?, ?, ?::TIMESTAMP, ?, 10, 1, ?, 0, ?, 'a caption', ?, ?::VARCHAR[], ?::VARCHAR[])`,
        [id, post, at, type, views, sponsored, brand, hashtags, mentions],
      );
    }
    await t.store.run(
      `UPDATE creators SET sponsored_pct = 12.5, engagement_rate_sponsored = 3.25, engagement_rate_organic = 2.5,
      posts_per_week = 4.67, last_posted_at = TIMESTAMP '2026-11-20 10:00:00', has_contact = true WHERE creator_id = ?`,
      [single.creator_id],
    );
    await setContentLists(t.store, single.creator_id, { hashtags: "['mealprep']", caption_words: "['a', 'caption']" });
    await t.store.run(
      `INSERT INTO linked_accounts VALUES (?, 'youtube', '@same_on_yt'), (?, 'tiktok', '@same_on_tt')`,
      [single.creator_id, single.creator_id],
    );
    await t.store.run(`INSERT INTO creator_contacts VALUES (?, 'hello@example.com', 'https://example.com')`, [
      single.creator_id,
    ]);

    const res = await t.api(`/v1/creators/${encodeURIComponent(single.handle)}`, { key });
    const text = await res.text();
    expect(text).not.toContain('hello@example.com');
    expect(text).not.toContain('caption_words');
    const p = JSON.parse(text) as Profile;
    expect(p.content.top_hashtags).toEqual([
      { tag: 'mealprep', posts: 3 },
      { tag: 'tag10', posts: 2 },
      { tag: 'tag11', posts: 2 },
      ...tags.slice(0, 7).map((tag) => ({ tag, posts: 1 })),
    ]);
    expect(p.content.top_mentions).toEqual([
      { handle: '@adidas', posts: 2 },
      { handle: '@nike', posts: 2 },
    ]);
    expect(p.content.brands).toEqual([
      { brand: '@nike', sponsored_posts: 2, last_posted_at: '2026-11-20T10:00:00.000Z' },
      { brand: '@adidas', sponsored_posts: 1, last_posted_at: '2026-11-18T10:00:00.000Z' },
    ]);
    expect(p.content).toMatchObject({
      sponsored_pct: 12.5,
      engagement_rate_sponsored: 3.25,
      engagement_rate_organic: 2.5,
      posts_per_week: 4.67,
      last_posted_at: '2026-11-20T10:00:00.000Z',
    });
    const byType = await t.store.all<{ type: string; views: number | null }>(
      'SELECT type, round(avg(views), 1) AS views FROM posts WHERE creator_id = ? GROUP BY type ORDER BY type',
      [single.creator_id],
    );
    expect(p.content.avg_views_by_type).toEqual(Object.fromEntries(byType.map((r) => [r.type, r.views])));
    expect(p.content.avg_views_by_type['live']).toBeNull();
    expect(p.linked_accounts).toEqual([
      { platform: 'tiktok', handle: '@same_on_tt' },
      { platform: 'youtube', handle: '@same_on_yt' },
    ]);
    expect(p.has_contact).toBe(true);
  });

  it('answers an empty content block for a creator without posts, links or contact', async () => {
    const bare = await t.store.one<{ handle: string; platform: string; creator_id: number }>(
      `SELECT handle, platform, creator_id FROM creators
      WHERE handle IN (SELECT handle FROM creators GROUP BY handle HAVING count(*) = 1) AND creator_id <> ? ORDER BY creator_id DESC LIMIT 1`,
      [single.creator_id],
    );
    for (const table of ['posts', 'linked_accounts', 'creator_contacts'])
      await t.store.run(`DELETE FROM ${table} WHERE creator_id = ?`, [bare!.creator_id]);
    await t.store.run('UPDATE creators SET has_contact = false WHERE creator_id = ?', [bare!.creator_id]);
    const p = await profile(`/v1/creators/${encodeURIComponent(bare!.handle)}?platform=${bare!.platform}`);
    expect(p.content).toMatchObject({ top_hashtags: [], top_mentions: [], brands: [], avg_views_by_type: {} });
    expect(p.recent_posts).toEqual([]);
    expect(p.linked_accounts).toEqual([]);
    expect(p.has_contact).toBe(false);
  });

  it('rejects a handle that cannot be one and an unknown platform', async () => {
    expect((await t.api('/v1/creators/bad%20handle!', { key })).status).toBe(400);
    expect((await t.api(`/v1/creators/${encodeURIComponent(single.handle)}?platform=myspace`, { key })).status).toBe(
      400,
    );
  });
});
