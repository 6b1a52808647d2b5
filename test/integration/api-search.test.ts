import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreatorSearchService } from '../../data/creators/creator-search.service.js';
import { SearchProjection } from '../../data/creators/search-projection.js';
import { eventually } from './webhook-fixtures.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;

interface Item {
  handle: string;
  platform: string;
  followers: number;
  engagement_rate: number | null;
  niche: string;
  country: string | null;
  display_name: string | null;
  audience_us_pct: number | null;
  verified: boolean;
}
interface SearchBody {
  results: number;
  creators: Item[];
  next_cursor: string | null;
}

async function search(query: string, as = key): Promise<SearchBody> {
  const res = await t.api(`/v1/creators/search?${query}`, { key: as });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as SearchBody;
}

/** Every page of a search, following next_cursor. */
async function walk(
  query: string,
  between?: (page: number) => Promise<void>,
  as = key,
): Promise<{ items: Item[]; totals: number[] }> {
  const items: Item[] = [];
  const totals: number[] = [];
  let cursor: string | null = null;
  let page = 0;
  do {
    const body = await search(`${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, as);
    items.push(...body.creators);
    totals.push(body.results);
    cursor = body.next_cursor;
    await between?.(++page);
  } while (cursor);
  return { items, totals };
}

const key2 = (r: { platform: string; handle: string }): string => `${r.platform}/${r.handle}`;

beforeAll(async () => {
  t = await startTestApp({ creators: 2000 });
  key = await t.key();
});
afterAll(async () => {
  await t?.close();
});

/** Each case: the API query, and the same filter written directly in SQL over `creators`. */
const CASES: Array<[string, string, unknown[]]> = [
  ['niche=food,travel', "niche IN ('food', 'travel')", []],
  ['country=us', "country = 'US'", []],
  ['followers_min=50000&followers_max=200000', 'followers BETWEEN 50000 AND 200000', []],
  [
    'platform=tiktok,x&engagement_min=2.5&engagement_max=9',
    "platform IN ('tiktok', 'x') AND engagement_rate >= 2.5 AND engagement_rate <= 9",
    [],
  ],
  ['city=london', "lower(city) = 'london'", []],
  ['language=ES', "language = 'es'", []],
  ['verified=true', 'verified', []],
  ['verified=false&niche=gaming', "NOT verified AND niche = 'gaming'", []],
  ['growth_30d_min=-2', 'growth_30d_pct >= -2', []],
  ['audience_country=US&audience_country_min_pct=40', 'audience_us_pct >= 40', []],
  [
    'audience_country=GB&audience_country_min_pct=30',
    "creator_id IN (SELECT creator_id FROM audience WHERE dimension = 'country' AND key = 'GB' AND pct >= 30)",
    [],
  ],
  [
    'q=Travels',
    "(lower(handle) LIKE '%travels%' OR lower(display_name) LIKE '%travels%' OR lower(bio) LIKE '%travels%')",
    [],
  ],
  [
    'q=collabs%20fitness',
    "lower(bio) LIKE '%collabs%' AND (lower(handle || ' ' || display_name || ' ' || bio) LIKE '%fitness%')",
    [],
  ],
];

describe('GET /v1/creators/search', () => {
  it.each(CASES)('?%s matches the same filter run directly in SQL (total and order)', async (query, where) => {
    const expected = await t.store.all<{ platform: string; handle: string }>(
      `SELECT platform, handle FROM creators WHERE ${where} ORDER BY followers DESC, creator_id`,
    );
    expect(expected.length, 'the case should match something').toBeGreaterThan(0);
    const { items, totals } = await walk(`${query}&limit=100`);
    expect(totals[0]).toBe(expected.length);
    expect(items.map(key2)).toEqual(expected.map(key2));
  });

  it('answers the spec envelope with Creator items, default sort -followers and limit 20', async () => {
    const body = await search('');
    expect(body.results).toBe(2000);
    expect(body.creators).toHaveLength(20);
    expect(Object.keys(body.creators[0]!).sort()).toEqual([
      'audience_us_pct',
      'country',
      'display_name',
      'engagement_rate',
      'followers',
      'handle',
      'niche',
      'platform',
      'verified',
    ]);
    const followers = body.creators.map((c) => c.followers);
    expect(followers).toEqual([...followers].sort((a, b) => b - a));
    expect(body.creators[0]!.handle).toMatch(/^@[a-z0-9]+$/);
  });

  it.each([
    ['engagement_rate', 'engagement_rate ASC NULLS LAST'],
    ['-engagement_rate', 'engagement_rate DESC NULLS LAST'],
    ['growth_30d', 'growth_30d_pct ASC NULLS LAST'],
    ['-authenticity_score', 'authenticity_score DESC NULLS LAST'],
  ])('sort=%s orders like SQL ORDER BY %s with creator_id as tiebreak', async (sort, order) => {
    const expected = await t.store.all<{ platform: string; handle: string }>(
      `SELECT platform, handle FROM creators WHERE niche = 'tech' ORDER BY ${order}, creator_id`,
    );
    const { items } = await walk(`niche=tech&sort=${sort}&limit=37`);
    expect(items.map(key2)).toEqual(expected.map(key2));
  });

  it('a cursor walk at a small limit returns each creator exactly once while another writer changes the data', async () => {
    const before = await t.store.all<{ platform: string; handle: string }>(
      "SELECT platform, handle FROM creators WHERE niche = 'food'",
    );
    expect(before.length).toBeGreaterThan(60);
    let nextId = 900_000;
    const { items } = await walk('niche=food&limit=7', async (page) => {
      // a concurrent writer: new matching creators appear, existing ones change non-sort fields
      await t.store.run(
        `INSERT INTO creators (creator_id, platform, handle, niche, followers, updated_at, search_text)
        VALUES (?, 'x', ?, 'food', ?, now()::TIMESTAMP, 'new')`,
        [nextId, `@writer${nextId}`, 5000 + page],
      );
      nextId += 1;
      await t.store.run("UPDATE creators SET bio = 'changed ' || ? WHERE niche = 'food' AND creator_id % 5 = 0", [
        String(page),
      ]);
    });
    const seenKeys = items.map(key2);
    expect(new Set(seenKeys).size).toBe(seenKeys.length);
    for (const c of before) expect(seenKeys).toContain(key2(c));
  });

  it('a cursor only works with the filters and sort it was issued for', async () => {
    const first = await search('niche=food&limit=5');
    expect(first.next_cursor).not.toBeNull();
    const c = encodeURIComponent(first.next_cursor!);
    expect((await t.api(`/v1/creators/search?niche=food&limit=5&cursor=${c}`, { key })).status).toBe(200);
    expect((await t.api(`/v1/creators/search?niche=food&limit=9&cursor=${c}`, { key })).status).toBe(200);
    for (const other of ['niche=tech', 'niche=food&sort=engagement_rate']) {
      const res = await t.api(`/v1/creators/search?${other}&cursor=${c}`, { key });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { errors: Array<{ param: string }> }).errors[0]!.param).toBe('cursor');
    }
    const tampered = first.next_cursor!.replace(/^./, (ch) => (ch === 'e' ? 'f' : 'e'));
    expect((await t.api(`/v1/creators/search?niche=food&cursor=${encodeURIComponent(tampered)}`, { key })).status).toBe(
      400,
    );
  });

  it('a cursor survives a restart of the app over the same data folder', async () => {
    const first = await search('niche=pets&limit=3');
    const restarted = await startTestApp({ testStore: t });
    try {
      const k = await restarted.key();
      const res = await restarted.api(
        `/v1/creators/search?niche=pets&limit=3&cursor=${encodeURIComponent(first.next_cursor!)}`,
        { key: k },
      );
      expect(res.status).toBe(200);
      const page2 = (await res.json()) as SearchBody;
      expect(page2.creators.map(key2)).not.toContain(key2(first.creators[0]!));
    } finally {
      await restarted.close();
    }
  });

  it('the sorted projection, once built, answers exactly like the creators table', async () => {
    await search('niche=art');
    await t.app.settle();
    const state = await t.store.one<{ n: number }>('SELECT count(*) AS n FROM creator_search_projection_state');
    expect(state?.n).toBe(1);
    await new SearchProjection(t.store).rebuild();
    const viaProjection = new CreatorSearchService(t.store, { cacheTtlMs: 0 });
    const viaTable = new CreatorSearchService(t.store, { cacheTtlMs: 0, projection: false });
    const requests = [
      { filters: { niche: ['art', 'pets'] }, sort: { key: 'followers' as const, descending: true } },
      { filters: { city: 'london', verified: false }, sort: { key: 'engagement_rate' as const, descending: false } },
      {
        filters: { audience_country: 'BR', audience_country_min_pct: 10 },
        sort: { key: 'growth_30d' as const, descending: true },
      },
      // the projection has no price column: a price sort reads creators even while the projection is current
      { filters: { niche: ['art'] }, sort: { key: 'price' as const, descending: true } },
    ];
    for (const r of requests) {
      const a = await viaProjection.search({ ...r, after: null, limit: 50 });
      const b = await viaTable.search({ ...r, after: null, limit: 50 });
      expect(a).toEqual(b);
      expect(a.results).toBeGreaterThan(0);
    }
  });

  it('totals follow data changes (the cache is invalidated)', async () => {
    const before = (await search('country=NZ&limit=1')).results;
    await t.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, country, followers, updated_at, search_text)
      VALUES (990001, 'x', '@kiwi990001', 'food', 'NZ', 1234, now()::TIMESTAMP + INTERVAL 1 DAY, 'kiwi')`);
    // the data version is re-read at most once a second: poll until the new creator is counted
    await eventually(
      async () => (await search('country=NZ&limit=1')).results === before + 1,
      10_000,
      'the new creator counted',
    );
  });
});

describe('discovery filters on the demo data', () => {
  // many pages of many searches: a plan whose rate limit they stay under
  let busy: string;
  beforeAll(async () => {
    busy = await t.key({ plan: 'enterprise' });
  });

  /** The most common value of a list column, with its SQL condition. */
  async function common(column: string): Promise<string> {
    const row = await t.store.one<{ v: string }>(
      `SELECT v FROM (SELECT unnest(${column}) AS v FROM creator_content) GROUP BY v ORDER BY count(*) DESC, v LIMIT 1`,
    );
    expect(row, `the demo data should hold ${column}`).toBeDefined();
    return row!.v;
  }

  it('a hashtag, mention, brand, keyword, audience or contact search finds exactly the creators SQL finds', async () => {
    const tag = await common('hashtags');
    const mention = await common('mentions');
    const brand = await common('brands');
    const word = await common('caption_words');
    const interest = (await t.store.one<{ v: string }>(
      `SELECT key AS v FROM audience WHERE dimension = 'interest' GROUP BY key ORDER BY count(*) DESC, key LIMIT 1`,
    ))!.v;
    const sq = (s: string): string => s.replace(/'/g, "''");
    const cases: Array<[string, string]> = [
      [`hashtags=%23${encodeURIComponent(tag.toUpperCase())},nosuchtag`, `list_contains(hashtags, '${sq(tag)}')`],
      [`mentions=@${encodeURIComponent(mention)}`, `list_contains(mentions, '${sq(mention)}')`],
      [`brands=${encodeURIComponent(brand.slice(1).toUpperCase())}`, `list_contains(brands, '${sq(brand)}')`],
      [
        `keywords=${encodeURIComponent(word.slice(0, 4))}`,
        `len(list_filter(caption_words, lambda w: starts_with(w, '${sq(word.slice(0, 4))}'))) > 0`,
      ],
      ['has_sponsored_posts=true', 'sponsored_posts > 0'],
      ['has_sponsored_posts=false&niche=food', "coalesce(sponsored_posts, 0) = 0 AND niche = 'food'"],
      ['avg_views_min=20000', 'avg_views >= 20000'],
      ['reels_views_min=10000', 'reels_avg_views >= 10000'],
      [
        'audience_gender=female&audience_gender_min_pct=60',
        "creator_id IN (SELECT creator_id FROM audience WHERE dimension = 'gender' AND key = 'female' AND pct >= 60)",
      ],
      [
        'audience_gender=male&niche=gaming',
        "niche = 'gaming' AND creator_id IN (SELECT creator_id FROM audience WHERE dimension = 'gender' AND key = 'male' AND pct > 0)",
      ],
      [
        'audience_age=25-34,18-24&audience_age_min_pct=50',
        `creator_id IN (SELECT creator_id FROM audience WHERE dimension = 'age'
        AND key IN ('18-24', '25-34') GROUP BY creator_id HAVING sum(pct) >= 50)`,
      ],
      [
        'audience_language=es&audience_language_min_pct=20',
        "creator_id IN (SELECT creator_id FROM audience WHERE dimension = 'language' AND key = 'es' AND pct >= 20)",
      ],
      [
        `audience_interest=${interest}&audience_interest_min_pct=10`,
        `creator_id IN (SELECT creator_id FROM audience WHERE dimension = 'interest' AND key = '${sq(interest)}' AND pct >= 10)`,
      ],
      [
        'audience_real_min_pct=70',
        "creator_id IN (SELECT creator_id FROM audience WHERE dimension = 'quality' AND key = 'real' AND pct >= 70)",
      ],
      ['has_contact=true', 'has_contact'],
      ['also_on=youtube,tiktok', "list_has_any(linked_platforms, ['youtube', 'tiktok'])"],
      ['last_posted_days_max=3650', 'last_posted_at IS NOT NULL'],
      [
        `niche=fitness&hashtags=${encodeURIComponent(tag)}&audience_gender=female`,
        `niche = 'fitness' AND list_contains(hashtags, '${sq(tag)}')
        AND creator_id IN (SELECT creator_id FROM audience WHERE dimension = 'gender' AND key = 'female' AND pct > 0)`,
      ],
    ];
    for (const [query, where] of cases) {
      const expected = await t.store.all<{ platform: string; handle: string }>(
        `SELECT platform, handle FROM creators LEFT JOIN creator_content USING (creator_id) WHERE ${where} ORDER BY followers DESC, creator_id`,
      );
      expect(expected.length, `${query} should match something`).toBeGreaterThan(0);
      const { items, totals } = await walk(`${query}&limit=100`, undefined, busy);
      expect(totals[0], query).toBe(expected.length);
      expect(items.map(key2), query).toEqual(expected.map(key2));
    }
  }, 120_000);

  it("exclude_list leaves out the members of the caller's lists, follows their changes, and refuses another account's list", async () => {
    const key = busy;
    const created = await t.api('/v1/lists', { key, method: 'POST', json: { name: 'already booked' } });
    expect(created.status).toBe(201);
    const list = ((await created.json()) as { id: string }).id;
    const food = await walk('niche=food&limit=100', undefined, key);
    const members = food.items.slice(0, 5);
    const add = await t.api(`/v1/lists/${list}/creators`, {
      key,
      method: 'POST',
      json: { creators: members.map((m) => ({ handle: m.handle, platform: m.platform })) },
    });
    expect(add.status).toBe(200);
    const without = await walk(`niche=food&exclude_list=${list}&limit=100`, undefined, key);
    expect(without.totals[0]).toBe(food.totals[0]! - 5);
    expect(without.items.map(key2)).toEqual(food.items.slice(5).map(key2));
    // a member leaving changes the answer at once (the lists' versions key the caches)
    const removed = await t.api(
      `/v1/lists/${list}/creators/${encodeURIComponent(members[0]!.handle)}?platform=${members[0]!.platform}`,
      { key, method: 'DELETE' },
    );
    expect(removed.status).toBe(204);
    expect((await search(`niche=food&exclude_list=${list}&limit=1`, key)).results).toBe(food.totals[0]! - 4);
    const stranger = await t.key();
    const refused = await t.api(`/v1/creators/search?niche=food&exclude_list=${list}`, { key: stranger });
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { errors: Array<{ param: string }> }).errors.map((e) => e.param)).toEqual([
      'exclude_list',
    ]);
    const unknown = await t.api('/v1/creators/search?exclude_list=lst_doesnotexist', { key });
    expect(unknown.status).toBe(400);
  });
});

describe('price_max and sort=price', () => {
  let busy: string;
  beforeAll(async () => {
    busy = await t.key({ plan: 'enterprise' });
    // prices as a pricing model leaves them (the column is set directly here): a tenth without an estimate, ties
    await t.store.run(`UPDATE creators SET price_post_usd = CASE WHEN creator_id % 10 = 3 THEN NULL
        WHEN creator_id % 7 = 0 THEN 400 ELSE round(0.02 * pow(followers, 0.8), 2) END`);
    // a fitted model is what tells searches the prices changed (the data version, docs/search.md)
    await t.store.run(`INSERT INTO pricing_models (version, fitted_at, observations, model, metrics)
      VALUES ('api-search-test', now()::TIMESTAMP, 0, '{}', '{}')`);
    // the data version is re-read at most once a second: wait until searches see the new prices
    const atMost400 = (await t.store.one<{ n: number }>(
      'SELECT count(*) AS n FROM creators WHERE price_post_usd <= 400',
    ))!.n;
    await eventually(
      async () => (await search('price_max=400&limit=1', busy)).results === atMost400,
      10_000,
      'the new prices searched',
    );
  });

  it('price_max finds the creators whose mid estimate of a post is at most N; those without an estimate never match', async () => {
    for (const [query, where] of [
      ['price_max=400', 'price_post_usd <= 400'],
      ['price_max=0', 'price_post_usd <= 0'],
      ['price_max=1000000000&niche=food', "price_post_usd IS NOT NULL AND niche = 'food'"],
    ] as const) {
      const expected = await t.store.all<{ platform: string; handle: string }>(
        `SELECT platform, handle FROM creators WHERE ${where} ORDER BY followers DESC, creator_id`,
      );
      const { items, totals } = await walk(`${query}&limit=100`, undefined, busy);
      expect(totals[0], query).toBe(expected.length);
      expect(items.map(key2), query).toEqual(expected.map(key2));
    }
  });

  it.each([
    ['price', 'price_post_usd ASC NULLS LAST'],
    ['-price', 'price_post_usd DESC NULLS LAST'],
  ])(
    'sort=%s orders like SQL ORDER BY %s (creators without an estimate last), cursor by cursor',
    async (sort, order) => {
      const expected = await t.store.all<{ platform: string; handle: string }>(
        `SELECT platform, handle FROM creators WHERE niche = 'tech' ORDER BY ${order}, creator_id`,
      );
      expect(expected.length).toBeGreaterThan(40);
      const { items } = await walk(`niche=tech&sort=${sort}&limit=23`, undefined, busy);
      expect(items.map(key2)).toEqual(expected.map(key2));
    },
  );
});
