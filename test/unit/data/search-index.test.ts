import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countMatching, filterSql, selectPage, type CreatorSearchFilters, type CreatorSort,
} from '../../../data/creators/creator-search.queries.js';
import { CreatorSearchService } from '../../../data/creators/creator-search.service.js';
import { SORT_KEYS } from '../../../data/creators/creator-taxonomy.js';
import type { SearchIndex } from '../../../data/creators/search-index/search-index.js';
import { loadSearchDelta } from '../../../data/creators/search-index/search-delta.js';
import { loadSearchIndex } from '../../../data/creators/search-index/search-index.loader.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

let t: TestStore;
let currentIndex: SearchIndex;
let vocabulary: {
  platforms: string[]; niches: string[]; countries: string[]; languages: string[]; cities: string[]; audience: string[]; texts: string[];
  numbers: Record<'followers' | 'engagement' | 'growth' | 'authenticity' | 'pct', number[]>;
};

/** What the store holds, so the generated filters hit real values (and a few that match nothing). */
async function readVocabulary(): Promise<typeof vocabulary> {
  const values = async (sql: string): Promise<string[]> => (await t.store.all<{ v: string }>(sql)).map((r) => r.v);
  return {
    platforms: await values('SELECT DISTINCT platform AS v FROM creators ORDER BY v'),
    niches: await values('SELECT DISTINCT niche AS v FROM creators ORDER BY v'),
    countries: await values('SELECT DISTINCT country AS v FROM creators WHERE country IS NOT NULL ORDER BY v'),
    languages: await values('SELECT DISTINCT language AS v FROM creators WHERE language IS NOT NULL ORDER BY v'),
    cities: await values('SELECT DISTINCT lower(city) AS v FROM creators WHERE city IS NOT NULL ORDER BY v'),
    audience: await values(`SELECT DISTINCT key AS v FROM audience WHERE dimension = 'country' ORDER BY v`),
    texts: await values('SELECT search_text AS v FROM creators WHERE search_text IS NOT NULL ORDER BY creator_id LIMIT 300'),
    numbers: {
      followers: await numbers('followers'),
      engagement: await numbers('engagement_rate'),
      growth: await numbers('growth_30d_pct'),
      authenticity: await numbers('authenticity_score'),
      pct: (await t.store.all<{ v: number }>(`SELECT DISTINCT pct::DOUBLE AS v FROM audience WHERE dimension = 'country' ORDER BY v LIMIT 200`))
        .map((r) => r.v),
    },
  };
}

/** Values a column holds: bounds equal to a stored value are where >= and > differ. */
async function numbers(column: string): Promise<number[]> {
  return (await t.store.all<{ v: number }>(`SELECT DISTINCT ${column}::DOUBLE AS v FROM creators WHERE ${column} IS NOT NULL
    ORDER BY hash(${column}) LIMIT 200`)).map((r) => r.v);
}

/** Random filter sets over the store's own values: every filter of CONTRACT §5, each present or not. */
function filtersArb(): fc.Arbitrary<CreatorSearchFilters> {
  const v = vocabulary;
  const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);
  // a word: a piece of a real text (1–8 characters, so short and long words both occur), or one found nowhere
  const word = fc.oneof(
    fc.tuple(pick(v.texts), fc.nat(), fc.integer({ min: 1, max: 8 })).map(([text, at, len]) => {
      const words = text.split(' ').filter((w) => w.length > 0);
      const w = words[at % words.length] ?? 'x';
      const start = at % Math.max(1, w.length);
      return w.slice(start, start + len) || w;
    }),
    fc.constant('zzqxv'),
  );
  const percent = fc.oneof(fc.double({ min: 0, max: 30, noNaN: true }).map((x) => Math.round(x * 100) / 100), pick(v.numbers.pct));
  const bound = (stored: number[], arb: fc.Arbitrary<number>): fc.Arbitrary<number> => fc.oneof(arb, pick(stored));
  const recordKeys = {
    platform: fc.uniqueArray(pick([...v.platforms, 'myspace']), { minLength: 1, maxLength: 2 }),
    niche: fc.uniqueArray(pick(v.niches), { minLength: 1, maxLength: 3 }),
    country: pick([...v.countries, 'AQ']),
    followers_min: bound(v.numbers.followers, fc.integer({ min: 0, max: 200_000 })),
    followers_max: bound(v.numbers.followers, fc.integer({ min: 1_000, max: 5_000_000 })),
    engagement_min: bound(v.numbers.engagement, fc.double({ min: 0, max: 8, noNaN: true })),
    engagement_max: bound(v.numbers.engagement, fc.double({ min: 2, max: 20, noNaN: true })),
    city: pick([...v.cities, 'atlantis']),
    language: pick(v.languages),
    audience_country: pick([...v.audience, 'US', 'ZZ']),
    audience_country_min_pct: percent,
    verified: fc.boolean(),
    growth_30d_min: bound(v.numbers.growth, fc.double({ min: -20, max: 20, noNaN: true })),
    authenticity_min: bound(v.numbers.authenticity, fc.integer({ min: 0, max: 100 })),
    q: fc.uniqueArray(word, { minLength: 1, maxLength: 2 }),
  };
  const record = fc.record(recordKeys);
  // none to three filters at once: more match nothing at all, which would test little
  const keys = Object.keys(recordKeys) as Array<keyof CreatorSearchFilters>;
  return fc.tuple(record, fc.uniqueArray(fc.constantFrom(...keys), { minLength: 0, maxLength: 3 })).map(([all, chosen]) => {
    const out: CreatorSearchFilters = {};
    for (const k of chosen) (out as Record<string, unknown>)[k] = all[k];
    if (chosen.includes('audience_country_min_pct')) out.audience_country = all.audience_country;
    // the service refuses these combinations before any search (checkFilterRules); keep them valid
    if (out.followers_min !== undefined && out.followers_max !== undefined && out.followers_min > out.followers_max) delete out.followers_max;
    if (out.engagement_min !== undefined && out.engagement_max !== undefined && out.engagement_min > out.engagement_max) delete out.engagement_max;
    if (out.audience_country_min_pct !== undefined && out.audience_country === undefined) delete out.audience_country_min_pct;
    return out;
  });
}

const sortArb = fc.record({ key: fc.constantFrom(...SORT_KEYS), descending: fc.boolean() });

/** The SQL answer (the rules the index must keep): total, and two pages following the keyset. */
async function viaSql(filters: CreatorSearchFilters, sort: CreatorSort, limit: number): Promise<{ total: number; pages: number[][] }> {
  const where = filterSql(filters, 'creators');
  const total = await countMatching(t.store, 'creators', where);
  const first = await selectPage(t.store, 'creators', where, sort, null, limit);
  const last = first.at(-1);
  const second = last ? await selectPage(t.store, 'creators', where, sort, [last.sort_value, last.creator_id], limit) : [];
  return { total, pages: [first.map((r) => r.creator_id), second.map((r) => r.creator_id)] };
}

function viaIndex(filters: CreatorSearchFilters, sort: CreatorSort, limit: number, broadShare?: number): { total: number; pages: number[][] } {
  const index = broadShare === undefined ? currentIndex : currentIndex.withBroadShare(broadShare);
  const first = index.search(filters, sort, null, limit);
  const last = first.rows.at(-1);
  const second = last ? index.search(filters, sort, [last.sort_value, last.creator_id], limit).rows : [];
  return { total: first.total, pages: [first.rows.map((r) => r.creator_id), second.map((r) => r.creator_id)] };
}

async function expectSameAsSql(runs: number, seed: number): Promise<void> {
  // broad share 1: every list filter stays a list (tested position by position); 1e9: every one becomes a bit array
  const shares = fc.constantFrom(undefined, 1, 1e9);
  await fc.assert(fc.asyncProperty(filtersArb(), sortArb, fc.integer({ min: 1, max: 60 }), shares, async (filters, sort, limit, share) => {
    expect(viaIndex(filters, sort, limit, share), JSON.stringify({ filters, sort, limit, share })).toEqual(await viaSql(filters, sort, limit));
  }), { numRuns: runs, seed });
}

beforeAll(async () => {
  t = await createTestStore({ creators: 3000 });
  // edge cases the demo world has few of: NULL metrics, tied sort values, an empty text
  await t.store.run('UPDATE creators SET engagement_rate = NULL WHERE creator_id % 17 = 0');
  await t.store.run('UPDATE creators SET growth_30d_pct = NULL, authenticity_score = NULL WHERE creator_id % 23 = 0');
  await t.store.run('UPDATE creators SET followers = 50000 WHERE creator_id % 29 = 0');
  await t.store.run('UPDATE creators SET engagement_rate = 4.5 WHERE creator_id % 31 = 0');
  await t.store.run(`UPDATE creators SET search_text = '' WHERE creator_id % 97 = 0`);
  // a creator listed twice for one audience country (matches by its larger share)
  await t.store.run(`INSERT INTO audience SELECT creator_id, dimension, key, pct / 2, as_of FROM audience
    WHERE dimension = 'country' AND creator_id % 13 = 0`);
  vocabulary = await readVocabulary();
  currentIndex = await loadSearchIndex(t.store);
}, 120_000);

afterAll(async () => {
  await t.cleanup();
});

describe('the search index', () => {
  it('returns exactly what the SQL returns (totals and pages) over random filter sets', async () => {
    await expectSameAsSql(150, 1);
  }, 120_000);

  it('matches a word inside a token, as contains() on the text does', async () => {
    const sort = { key: 'followers' as const, descending: true };
    for (const q of [['a'], ['an'], ['fit'], ['fitn'], ['travel', 'a']]) {
      expect(viaIndex({ q }, sort, 25)).toEqual(await viaSql({ q }, sort, 25));
    }
  });

  it('stays right through merges, deletes and re-ingests (rebuilt for the new data version)', async () => {
    await t.store.run(`UPDATE creators SET niche = 'pets', followers = followers + 1, search_text = search_text || ' moved'
      WHERE creator_id % 7 = 0`);
    await t.store.run('DELETE FROM audience WHERE creator_id % 11 = 0');
    await t.store.run('DELETE FROM creators WHERE creator_id % 11 = 0');
    await t.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, country, followers, engagement_rate, verified, updated_at, search_text)
      SELECT 900000 + i, 'youtube', 'fresh' || i, 'food', 'NZ', 1000 * i, i % 9, i % 2 = 0, now()::TIMESTAMP, 'fresh' || i || ' kiwi cook'
      FROM range(1, 200) t(i)`);
    currentIndex = await loadSearchIndex(t.store);
    await expectSameAsSql(80, 2);
    const sort = { key: 'followers' as const, descending: true };
    expect(viaIndex({ q: ['kiwi'] }, sort, 10).total).toBe(199);
    expect(viaIndex({ q: ['moved'] }, sort, 10)).toEqual(await viaSql({ q: ['moved'] }, sort, 10));
  }, 120_000);

  it('a delta over the base (changed, new and deleted creators, changed audiences) answers exactly like SQL', async () => {
    const base = await loadSearchIndex(t.store);
    await t.store.run(`UPDATE creators SET followers = followers * 2, engagement_rate = NULL, search_text = search_text || ' deltaword'
      WHERE creator_id % 13 = 1 AND creator_id < 900000`);
    await t.store.run(`UPDATE creators SET niche = 'astrology', country = 'IS', city = 'Reykjavik', verified = NOT verified
      WHERE creator_id % 19 = 2 AND creator_id < 900000`);
    await t.store.run(`UPDATE audience SET pct = pct + 7 WHERE dimension = 'country' AND creator_id % 17 = 3`);
    await t.store.run(`INSERT INTO audience SELECT creator_id, 'country', 'NZ', 33, now()::TIMESTAMP FROM creators WHERE creator_id % 23 = 4`);
    await t.store.run('DELETE FROM creators WHERE creator_id % 29 = 5 AND creator_id < 900000');
    await t.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, country, followers, engagement_rate, verified, updated_at, search_text)
      SELECT 950000 + i, 'tiktok', 'delta' || i, 'astrology', 'IS', 500 * i, i % 7, i % 3 = 0, now()::TIMESTAMP, 'delta' || i || ' deltaword'
      FROM range(1, 60) t(i)`);
    const delta = await loadSearchDelta(t.store, base.baseFingerprints(), 100_000);
    expect(delta).not.toBeNull();
    expect(delta!.rows.length).toBeGreaterThan(100);
    currentIndex = base.withDelta(delta!);
    await expectSameAsSql(100, 3);
    const sort = { key: 'engagement_rate' as const, descending: false };
    for (const filters of [{ niche: ['astrology'] }, { q: ['deltaword'] }, { audience_country: 'NZ', audience_country_min_pct: 30 }, {}]) {
      expect(viaIndex(filters, sort, 40), JSON.stringify(filters)).toEqual(await viaSql(filters, sort, 40));
    }
    // past the change budget the caller rebuilds instead
    expect(await loadSearchDelta(t.store, base.baseFingerprints(), 10)).toBeNull();
  }, 120_000);

  it('the service answers from the index only while it is current, and like SQL either way', async () => {
    const indexed = new CreatorSearchService(t.store, { cacheTtlMs: 0, projection: false, versionCheckMs: 0 });
    const sqlOnly = new CreatorSearchService(t.store, { cacheTtlMs: 0, projection: false, index: false, versionCheckMs: 0 });
    await indexed.buildIndex();
    const request = { filters: { niche: ['food'], q: ['kiwi'] }, sort: { key: 'followers' as const, descending: false }, after: null, limit: 5 };
    expect(await indexed.search(request)).toEqual(await sqlOnly.search(request));
    // a change the index has not seen: the next search must still count it
    await t.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, country, followers, verified, updated_at, search_text)
      VALUES (990500, 'youtube', 'latekiwi', 'food', 'NZ', 7, false, now()::TIMESTAMP, 'latekiwi kiwi')`);
    const after = await indexed.search(request);
    expect(after).toEqual(await sqlOnly.search(request));
    expect(after.results).toBe(200);
  });
});
