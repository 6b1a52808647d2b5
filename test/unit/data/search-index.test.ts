import fc from 'fast-check';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  countMatching,
  filterSql,
  NULL_LAST,
  selectPage,
  type CreatorSearchFilters,
  type CreatorSort,
  type SearchPageRow,
} from '../../../data/creators/creator-search.queries.js';
import { setBitKernelFrom } from '../../../data/creators/search-index/bitset.js';
import { setAudienceAnswersKept } from '../../../data/creators/search-index/discovery-filters.js';
import { findByHandle } from '../../../data/creators/creator-profile.queries.js';
import { CreatorSearchService } from '../../../data/creators/creator-search.service.js';
import { AGE_RANGES, GENDERS, SORT_KEYS } from '../../../data/creators/creator-taxonomy.js';
import { Exclusion, searchContext, type SearchContext } from '../../../data/creators/search-context.js';
import type { IndexPage, SearchIndex } from '../../../data/creators/search-index/search-index.js';
import { loadSearchDelta } from '../../../data/creators/search-index/search-delta.js';
import { loadSearchIndex } from '../../../data/creators/search-index/search-index.loader.js';
import { openIndexFiles, writeIndexFiles } from '../../../data/creators/search-index/index-files.js';
import { createTestStore, setContentLists, type TestStore } from '../../helpers/store.js';

let t: TestStore;
let currentIndex: SearchIndex;
let vocabulary: {
  platforms: string[];
  niches: string[];
  countries: string[];
  languages: string[];
  cities: string[];
  audience: string[];
  texts: string[];
  hashtags: string[];
  mentions: string[];
  brands: string[];
  words: string[];
  ids: number[];
  audienceLanguages: string[];
  interests: string[];
  numbers: Record<
    | 'followers'
    | 'engagement'
    | 'growth'
    | 'authenticity'
    | 'pct'
    | 'views'
    | 'reels'
    | 'sharePct'
    | 'ageSum'
    | 'price',
    number[]
  >;
};
/** The request time the property tests pin (last_posted_days_max counts back from it). */
const NOW = Date.parse('2026-11-21T06:00:00Z');
const ANY = (xs: string) =>
  `SELECT DISTINCT v FROM (SELECT unnest(${xs}) AS v FROM creator_content) ORDER BY hash(v) LIMIT 60`;

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
    texts: await values(
      'SELECT search_text AS v FROM creators WHERE search_text IS NOT NULL ORDER BY creator_id LIMIT 300',
    ),
    hashtags: await values(ANY('hashtags')),
    mentions: await values(ANY('mentions')),
    brands: await values(ANY('brands')),
    words: await values(ANY('caption_words')),
    ids: (await t.store.all<{ v: number }>('SELECT creator_id AS v FROM creators ORDER BY creator_id')).map((r) => r.v),
    audienceLanguages: await values(`SELECT DISTINCT key AS v FROM audience WHERE dimension = 'language' ORDER BY v`),
    interests: await values(`SELECT DISTINCT key AS v FROM audience WHERE dimension = 'interest' ORDER BY v`),
    numbers: {
      views: await numbers('avg_views'),
      reels: await numbers('reels_avg_views'),
      price: await numbers('price_post_usd'),
      sharePct: (
        await t.store.all<{ v: number }>(`SELECT DISTINCT pct::DOUBLE AS v FROM audience WHERE dimension <> 'country'
        ORDER BY hash(v) LIMIT 200`)
      ).map((r) => r.v),
      // sums of two ranges as the search adds them, so bounds equal to a sum occur
      ageSum: (
        await t.store.all<{ v: number }>(`SELECT DISTINCT (coalesce(max(pct) FILTER (WHERE key = '18-24'), 0)
        + coalesce(max(pct) FILTER (WHERE key = '25-34'), 0))::DOUBLE AS v FROM audience WHERE dimension = 'age' GROUP BY creator_id
        ORDER BY hash(v) LIMIT 100`)
      ).map((r) => r.v),
      followers: await numbers('followers'),
      engagement: await numbers('engagement_rate'),
      growth: await numbers('growth_30d_pct'),
      authenticity: await numbers('authenticity_score'),
      pct: (
        await t.store.all<{ v: number }>(
          `SELECT DISTINCT pct::DOUBLE AS v FROM audience WHERE dimension = 'country' ORDER BY v LIMIT 200`,
        )
      ).map((r) => r.v),
    },
  };
}

/** Values a column holds: bounds equal to a stored value are where >= and > differ. */
async function numbers(column: string): Promise<number[]> {
  return (
    await t.store.all<{ v: number }>(`SELECT DISTINCT ${column}::DOUBLE AS v FROM creators WHERE ${column} IS NOT NULL
    ORDER BY hash(${column}) LIMIT 200`)
  ).map((r) => r.v);
}

/** Random filter sets over the store's own values: every filter of docs/search.md, each present or not. */
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
  const percent = fc.oneof(
    fc.double({ min: 0, max: 30, noNaN: true }).map((x) => Math.round(x * 100) / 100),
    pick(v.numbers.pct),
  );
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
    ...discoveryArbs(),
  };
  const record = fc.record(recordKeys);
  // none to three filters at once: more match nothing at all, which would test little
  const keys = Object.keys(recordKeys) as Array<keyof CreatorSearchFilters>;
  return fc
    .tuple(record, fc.uniqueArray(fc.constantFrom(...keys), { minLength: 0, maxLength: 3 }))
    .map(([all, chosen]) => {
      const out: CreatorSearchFilters = {};
      for (const k of chosen) (out as Record<string, unknown>)[k] = all[k];
      if (chosen.includes('audience_country_min_pct')) out.audience_country = all.audience_country;
      // the service refuses these combinations before any search (checkFilterRules); keep them valid
      if (out.followers_min !== undefined && out.followers_max !== undefined && out.followers_min > out.followers_max)
        delete out.followers_max;
      if (
        out.engagement_min !== undefined &&
        out.engagement_max !== undefined &&
        out.engagement_min > out.engagement_max
      )
        delete out.engagement_max;
      if (out.audience_country_min_pct !== undefined && out.audience_country === undefined)
        delete out.audience_country_min_pct;
      for (const base of ['audience_gender', 'audience_age', 'audience_language', 'audience_interest'] as const) {
        if (out[`${base}_min_pct`] !== undefined) (out as Record<string, unknown>)[base] = all[base];
      }
      return out;
    });
}

/** The discovery filters over the store's own values (and values found nowhere). */
function discoveryArbs() {
  const v = vocabulary;
  const pick = <T>(xs: readonly T[]): fc.Arbitrary<T> => fc.constantFrom(...xs);
  const terms = (xs: string[], none: string) => fc.uniqueArray(pick([...xs, none]), { minLength: 1, maxLength: 3 });
  // a minimum of 0 passes every creator holding a share, where none and a share of 0 differ
  const share = fc.oneof(
    fc.double({ min: 0, max: 80, noNaN: true }).map((x) => Math.round(x * 100) / 100),
    pick(v.numbers.sharePct),
    fc.constant(0),
  );
  // a prefix of a stored caption word (1–6 characters), or a word found nowhere
  const keyword = fc.oneof(
    fc.tuple(pick(v.words), fc.integer({ min: 1, max: 6 })).map(([w, n]) => w.slice(0, n)),
    fc.constant('qqzx'),
  );
  return {
    hashtags: terms(v.hashtags, 'nosuchtag'),
    mentions: terms(v.mentions, 'nobody'),
    brands: terms(v.brands, '@nobrand'),
    has_sponsored_posts: fc.boolean(),
    keywords: fc.uniqueArray(keyword, { minLength: 1, maxLength: 2 }),
    last_posted_days_max: fc.oneof(fc.integer({ min: 0, max: 420 }), fc.constantFrom(0, 30, 365)),
    avg_views_min: fc.oneof(pick(v.numbers.views), fc.integer({ min: 0, max: 500_000 })),
    reels_views_min: fc.oneof(pick(v.numbers.reels), fc.integer({ min: 0, max: 500_000 })),
    // a stored price (bounds equal to a value, the tied 250 and the zeros among them), or any up to the long tail's
    price_max: fc.oneof(
      pick(v.numbers.price),
      fc.constantFrom(0, 250),
      fc.double({ min: 0, max: 20_000, noNaN: true }).map((x) => Math.round(x * 100) / 100),
    ),
    audience_gender: pick(GENDERS),
    audience_gender_min_pct: share,
    audience_age: fc.oneof(
      fc.constant(['18-24', '25-34']),
      fc
        .uniqueArray(pick(AGE_RANGES), { minLength: 1, maxLength: 3 })
        .map((ranges) => AGE_RANGES.filter((r) => ranges.includes(r))),
    ),
    audience_age_min_pct: fc.oneof(share, pick(v.numbers.ageSum)),
    audience_language: pick([...v.audienceLanguages, 'is']),
    audience_language_min_pct: share,
    audience_interest: pick([...v.interests, 'knitting']),
    audience_interest_min_pct: share,
    audience_real_min_pct: share,
    exclude_list: fc.constant(['lst_x']),
    has_contact: fc.boolean(),
    also_on: fc.uniqueArray(pick(['instagram', 'tiktok', 'youtube', 'twitch', 'x']), { minLength: 1, maxLength: 2 }),
  };
}

/** An exclusion: every creator whose id is r modulo m (m small: most creators; large: a few), and ids the store never had. */
const exclusionArb = fc.tuple(fc.integer({ min: 1, max: 40 }), fc.nat()).map(([m, r]) => {
  const ids = vocabulary.ids.filter((id) => id % m === r % m);
  return new Exclusion(`m${m}r${r % m}`, Int32Array.from([...ids, 2_000_000_001]).sort());
});

const sortArb = fc.record({ key: fc.constantFrom(...SORT_KEYS), descending: fc.boolean() });

/** The SQL answer (the rules the index must keep): total, and two pages following the keyset. */
async function viaSql(
  filters: CreatorSearchFilters,
  sort: CreatorSort,
  limit: number,
  context: SearchContext = searchContext(NOW),
): Promise<{ total: number; pages: number[][] }> {
  const where = filterSql(filters, 'creators', context);
  const total = await countMatching(t.store, 'creators', where);
  const first = await selectPage(t.store, 'creators', where, sort, null, limit);
  const last = first.at(-1);
  const second = last
    ? await selectPage(t.store, 'creators', where, sort, [last.sort_value, last.creator_id], limit)
    : [];
  return { total, pages: [first.map((r) => r.creator_id), second.map((r) => r.creator_id)] };
}

function viaIndex(
  filters: CreatorSearchFilters,
  sort: CreatorSort,
  limit: number,
  broadShare?: number,
  context: SearchContext = searchContext(NOW),
): { total: number; pages: number[][] } {
  const index = broadShare === undefined ? currentIndex : currentIndex.withBroadShare(broadShare);
  const first = index.search(filters, sort, null, limit, context);
  const last = first.rows.at(-1);
  const second = last ? index.search(filters, sort, [last.sort_value, last.creator_id], limit, context).rows : [];
  return { total: first.total, pages: [first.rows.map((r) => r.creator_id), second.map((r) => r.creator_id)] };
}

/** Every page of a search through the index, following its keyset to the end. */
function walkIndex(filters: CreatorSearchFilters, sort: CreatorSort, limit: number): IndexPage['rows'] {
  const rows: IndexPage['rows'] = [];
  for (let after: [number, number] | null = null; ; ) {
    const page: IndexPage['rows'] = currentIndex.search(filters, sort, after, limit, searchContext(NOW)).rows;
    for (const { creator_id, sort_value, position } of page) {
      // a row's position names its creator's item, as its id does
      if (position !== undefined)
        expect(currentIndex.item(creator_id, position)).toEqual(currentIndex.item(creator_id));
      rows.push({ creator_id, sort_value });
    }
    const last = page.at(-1);
    if (page.length < limit || !last) return rows;
    after = [last.sort_value, last.creator_id];
  }
}

/** Every page of a search through SQL, following its keyset to the end. */
async function walkSql(filters: CreatorSearchFilters, sort: CreatorSort, limit: number): Promise<IndexPage['rows']> {
  const where = filterSql(filters, 'creators', searchContext(NOW));
  const rows: IndexPage['rows'] = [];
  for (let after: [number, number] | null = null; ; ) {
    const page: SearchPageRow[] = await selectPage(t.store, 'creators', where, sort, after, limit);
    rows.push(...page.map((r) => ({ creator_id: r.creator_id, sort_value: r.sort_value })));
    const last = page.at(-1);
    if (page.length < limit || !last) return rows;
    after = [last.sort_value, last.creator_id];
  }
}

async function expectSameAsSql(runs: number, seed: number): Promise<void> {
  // broad share 1: every list filter stays a list (tested position by position); 1e9: every one becomes a bit array
  const shares = fc.constantFrom(undefined, 1, 1e9);
  await fc.assert(
    fc.asyncProperty(
      filtersArb(),
      sortArb,
      fc.integer({ min: 1, max: 60 }),
      shares,
      exclusionArb,
      async (filters, sort, limit, share, excluded) => {
        const context = searchContext(NOW, filters.exclude_list ? excluded : null);
        expect(
          viaIndex(filters, sort, limit, share, context),
          JSON.stringify({ filters, sort, limit, share, excluded }),
        ).toEqual(await viaSql(filters, sort, limit, context));
      },
    ),
    { numRuns: runs, seed },
  );
}

/** Every discovery filter alone, on both ways of evaluating it, against the SQL. */
async function expectDiscoveryAloneAsSql(): Promise<void> {
  const arbs = discoveryArbs();
  const sort = { key: 'followers' as const, descending: true };
  for (const [name, arb] of Object.entries(arbs)) {
    for (const value of fc.sample(arb as fc.Arbitrary<unknown>, { numRuns: 4, seed: name.length })) {
      const filters = { [name]: value } as CreatorSearchFilters;
      if (name.endsWith('_min_pct') && name !== 'audience_real_min_pct') {
        (filters as Record<string, unknown>)[name.replace('_min_pct', '')] = fc.sample(
          (arbs as Record<string, fc.Arbitrary<unknown>>)[name.replace('_min_pct', '')]!,
          1,
        )[0];
      }
      const exclusions = filters.exclude_list
        ? [new Exclusion('none', new Int32Array(0)), ...fc.sample(exclusionArb, { numRuns: 3, seed: 7 })]
        : [null];
      for (const excluded of exclusions) {
        const context = searchContext(NOW, excluded);
        const sql = await viaSql(filters, sort, 20, context);
        for (const share of [undefined, 1, 1e9])
          expect(viaIndex(filters, sort, 20, share, context), JSON.stringify({ filters, share, excluded })).toEqual(
            sql,
          );
      }
    }
  }
}

/** Searches whose matches bunch late in the sort order, every page of each against SQL. */
async function expectBunchedAsSql(): Promise<void> {
  // growth goes against authenticity and views with followers: sorted so, the matches sit late in the order,
  // a walk gives up and the suffix sets find the stretch each page lies in; followers hold ties (50000)
  const bounds = await t.store.one<Record<string, number>>(`SELECT
      quantile_disc(growth_30d_pct, 0.7) AS growth, quantile_disc(avg_views, 0.8) AS views,
      quantile_disc(followers, 0.9) AS followers, quantile_disc(followers, 0.2) AS few FROM creators`);
  const cases: Array<[CreatorSearchFilters, CreatorSort['key']]> = [
    [{ growth_30d_min: Number(bounds!.growth) }, 'authenticity_score'],
    // prices go with followers and tie often (250, 0): few followers sorted by price, most expensive first
    [{ followers_max: Number(bounds!.few) }, 'price'],
    [{ avg_views_min: Number(bounds!.views) }, 'followers'],
    [{ followers_min: Number(bounds!.followers) }, 'engagement_rate'],
    [{ followers_max: 50000, verified: false }, 'followers'],
  ];
  for (const [filters, key] of cases) {
    for (const descending of [true, false]) {
      const sort = { key, descending };
      expect(walkIndex(filters, sort, 40), JSON.stringify({ filters, sort })).toEqual(await walkSql(filters, sort, 40));
    }
  }
}

/** Words inside tokens, short ones (every token looked at) and several at once. */
async function expectWordsAsSql(): Promise<void> {
  const sort = { key: 'followers' as const, descending: true };
  for (const q of [['a'], ['an'], ['fit'], ['fitn'], ['travel', 'a'], ['ü'], ['.1']]) {
    expect(viaIndex({ q }, sort, 25), JSON.stringify(q)).toEqual(await viaSql({ q }, sort, 25));
  }
}

beforeAll(async () => {
  t = await createTestStore({ creators: 3000 });
  // edge cases the demo world has few of: NULL metrics, tied sort values, an empty text
  await t.store.run('UPDATE creators SET engagement_rate = NULL WHERE creator_id % 17 = 0');
  await t.store.run('UPDATE creators SET growth_30d_pct = NULL, authenticity_score = NULL WHERE creator_id % 23 = 0');
  await t.store.run('UPDATE creators SET followers = 50000 WHERE creator_id % 29 = 0');
  await t.store.run('UPDATE creators SET engagement_rate = 4.5 WHERE creator_id % 31 = 0');
  await t.store.run(`UPDATE creators SET search_text = '' WHERE creator_id % 97 = 0`);
  await fillPrices();
  // a creator listed twice for one audience country (matches by its larger share)
  await t.store.run(`INSERT INTO audience SELECT creator_id, dimension, key, pct / 2, as_of FROM audience
    WHERE dimension = 'country' AND creator_id % 13 = 0`);
  await fillDiscovery();
  vocabulary = await readVocabulary();
  currentIndex = await loadSearchIndex(t.store);
}, 120_000);

/**
 * Content columns for creators the demo data left without them, and edge cases
 * the demo world has few of: empty and NULL lists, NULL views and dates, a
 * creator listed twice for an age range or a gender (matches by its larger share).
 */
async function fillDiscovery(): Promise<void> {
  const bare = 'creator_id NOT IN (SELECT creator_id FROM creator_content WHERE len(caption_words) > 0)';
  await t.store.run(`UPDATE creators SET
      sponsored_posts = CASE WHEN creator_id % 4 = 0 THEN 0 ELSE creator_id % 6 + 1 END,
      last_posted_at = TIMESTAMP '2026-11-21 06:00:00' - to_days((creator_id % 400)::INTEGER) + to_microseconds((creator_id % 7) - 3),
      reels_avg_views = CASE WHEN creator_id % 5 = 0 THEN NULL ELSE round(followers * (creator_id % 7) / 10.0, 1) END,
      has_contact = creator_id % 3 = 0
    WHERE ${bare}`);
  await setContentLists(t.store, bare, {
    hashtags: `list_distinct([niche, 'tag' || (creator_id % 50), CASE WHEN creator_id % 3 = 0 THEN 'rare' || (creator_id % 997) END])`,
    mentions: `list_distinct(['friend' || (creator_id % 30), CASE WHEN creator_id % 5 = 0 THEN 'bff.' || (creator_id % 400) END])`,
    brands: `CASE WHEN creator_id % 4 = 0 THEN [] ELSE list_distinct(['@brand' || (creator_id % 40), CASE WHEN creator_id % 7 = 0 THEN '@nike' END]) END`,
    caption_words: `list_sort(list_distinct(['word' || (creator_id % 300), 'ünï' || (creator_id % 5), niche, 'post' || (creator_id % 17)]))`,
    linked_platforms: `CASE creator_id % 4 WHEN 0 THEN [] WHEN 1 THEN ['youtube'] ELSE ['tiktok', 'x'] END`,
  });
  // creators without content (no content row) and never derived
  await t.store.run('DELETE FROM creator_content WHERE creator_id % 37 = 0');
  await t.store.run(
    'UPDATE creators SET sponsored_posts = NULL, has_contact = NULL, last_posted_at = NULL WHERE creator_id % 37 = 0',
  );
  await t.store.run('UPDATE creators SET avg_views = NULL WHERE creator_id % 41 = 0');
  await t.store.run(`INSERT INTO audience SELECT creator_id, dimension, key, pct / 2, as_of FROM audience
    WHERE dimension IN ('age', 'gender', 'interest') AND creator_id % 13 = 0`);
}

/**
 * Prices as a pricing model leaves them (docs/search.md): roughly followers^0.8 with noise, a long tail of
 * expensive creators, about a tenth without an estimate (NULL), and ties (one price shared by many, a few zeros).
 */
async function fillPrices(): Promise<void> {
  await t.store.run(`UPDATE creators SET price_post_usd = CASE
      WHEN creator_id % 10 = 3 THEN NULL
      WHEN creator_id % 19 = 0 THEN 250
      WHEN creator_id % 101 = 0 THEN 0
      ELSE round(0.02 * pow(followers, 0.8) * (0.6 + (hash(creator_id, 'price') % 1000) / 1000.0 * 0.8)
        * CASE WHEN creator_id % 53 = 0 THEN 40 ELSE 1 END, 2)
    END`);
}

afterAll(async () => {
  await t.cleanup();
});

describe('the search index', () => {
  it('returns exactly what the SQL returns (totals and pages) over random filter sets', async () => {
    await expectSameAsSql(150, 1);
  }, 120_000);

  it('pages a range on the sort column, and a filter that goes with the sort value, exactly like SQL', async () => {
    // bounds at the column's quantiles, so each range holds a stretch of the order at its start, middle or end;
    // views go with followers, so many views sorted by fewest followers bunches the matches at the order's end
    const bounds = await t.store.one<Record<string, number[]>>(`SELECT
        quantile_disc(followers, [0.05, 0.5, 0.95]) AS followers, quantile_disc(engagement_rate, [0.05, 0.5, 0.95]) AS engagement,
        quantile_disc(growth_30d_pct, [0.05, 0.5, 0.95]) AS growth, quantile_disc(price_post_usd, [0.05, 0.5, 0.95]) AS price,
        quantile_disc(avg_views, [0.05, 0.5, 0.95]) AS views
      FROM creators`);
    const q = (name: string): number[] => (bounds![name] ?? []).map(Number);
    const [f, e, g, p, v] = [q('followers'), q('engagement'), q('growth'), q('price'), q('views')] as [
      number[],
      number[],
      number[],
      number[],
      number[],
    ];
    const cases: Array<[CreatorSearchFilters, CreatorSort['key']]> = [
      [{ followers_min: f[1]! }, 'followers'],
      [{ followers_max: f[1]! }, 'followers'],
      [{ followers_min: f[0]!, followers_max: f[2]! }, 'followers'],
      [{ followers_min: f[2]!, verified: false }, 'followers'],
      [{ engagement_min: e[0]!, engagement_max: e[1]! }, 'engagement_rate'],
      [{ engagement_max: e[0]!, platform: ['instagram', 'tiktok'] }, 'engagement_rate'],
      [{ growth_30d_min: g[2]! }, 'growth_30d'],
      [{ price_max: p[1]! }, 'price'],
      [{ growth_30d_min: g[1]! }, 'authenticity_score'],
      [{ followers_min: f[2]! }, 'engagement_rate'],
      [{ avg_views_min: v[1]! }, 'followers'],
      [{ avg_views_min: v[2]! }, 'followers'],
      // a value named twice counts once (a lone filter's total is its values' counts added up)
      [{ platform: ['instagram', 'instagram', 'tiktok'] }, 'engagement_rate'],
    ];
    for (const [filters, key] of cases) {
      for (const descending of [true, false]) {
        const sort = { key, descending };
        for (const limit of [1, 7, 50]) {
          // 1e9: every list a bit array, so the walk (not choosing among the matches) answers when it pays
          for (const share of [undefined, 1e9]) {
            expect(viaIndex(filters, sort, limit, share), JSON.stringify({ filters, sort, limit, share })).toEqual(
              await viaSql(filters, sort, limit, searchContext(NOW)),
            );
          }
        }
      }
    }
  }, 120_000);

  it("pages matches that bunch at the far end of the order (found through the sort column's suffix sets) like SQL, every page", async () => {
    await expectBunchedAsSql();
  }, 120_000);

  it('answers every discovery filter alone exactly like SQL, on both ways of evaluating it', async () => {
    await expectDiscoveryAloneAsSql();
  }, 120_000);

  it('matches content the way the parameters read: tags exactly, keywords by prefix, brands with their @, newest post by the pinned time', async () => {
    const sort = { key: 'followers' as const, descending: false };
    const totals = async (filters: CreatorSearchFilters): Promise<number> => {
      const sql = await viaSql(filters, sort, 5);
      expect(viaIndex(filters, sort, 5), JSON.stringify(filters)).toEqual(sql);
      return sql.total;
    };
    const count = async (where: string): Promise<number> =>
      (await t.store.one<{ n: number }>(
        `SELECT count(*) AS n FROM creators LEFT JOIN creator_content USING (creator_id) WHERE ${where}`,
      ))!.n;
    const tag = vocabulary.hashtags[0]!;
    expect(await totals({ hashtags: [tag] })).toBe(await count(`list_contains(hashtags, '${tag}')`));
    expect(await totals({ hashtags: [tag.slice(0, -1)] })).toBe(
      await count(`list_contains(hashtags, '${tag.slice(0, -1)}')`),
    );
    const prefix = vocabulary.words[0]!.slice(0, 3);
    expect(await totals({ keywords: [prefix] })).toBe(
      await count(`len(list_filter(caption_words, lambda w: w LIKE '${prefix}%')) > 0`),
    );
    expect(await totals({ brands: [vocabulary.brands[0]!] })).toBe(
      await count(`list_contains(brands, '${vocabulary.brands[0]!.replace(/'/g, "''")}')`),
    );
    expect(await totals({ brands: [vocabulary.brands[0]!] })).toBeGreaterThan(0);
    // a day's boundary: the creators posting exactly 30 days before the pinned time, to the microsecond, are in
    expect(await totals({ last_posted_days_max: 30 })).toBe(
      await count(`last_posted_at >= TIMESTAMP '2026-10-22 06:00:00'`),
    );
    expect(await totals({ audience_age: ['18-24', '25-34'], audience_age_min_pct: 50 })).toBeGreaterThan(0);
    // age ranges tested on another filter's matches (a run of positions, a tag's list, a bit array), not summed over the store
    const ages = { audience_age: ['13-17', '18-24', '25-34'], audience_age_min_pct: 40 };
    for (const other of [
      { platform: [vocabulary.platforms[0]!], niche: [vocabulary.niches[0]!] },
      { hashtags: [tag] },
      { verified: false },
      { followers_min: 100_000 },
      { exclude_list: ['lst_x'] },
    ]) {
      for (const share of [undefined, 1, 1e9]) {
        const filters = { ...other, ...ages };
        const context = searchContext(
          NOW,
          new Exclusion('odd', Int32Array.from(vocabulary.ids.filter((id) => id % 2 === 1))),
        );
        expect(viaIndex(filters, sort, 7, share, context), JSON.stringify({ filters, share })).toEqual(
          await viaSql(filters, sort, 7, context),
        );
      }
    }
  });

  it('matches a word inside a token, as contains() on the text does', async () => {
    await expectWordsAsSql();
  });

  it('read back from its files (views over one buffer), answers every property above exactly like SQL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cds-index-files-'));
    const built = currentIndex;
    try {
      await writeIndexFiles(dir, built);
      const opened = await openIndexFiles(dir, built.version);
      expect(opened.index?.version).toBe(built.version);
      currentIndex = opened.index!;
      await expectSameAsSql(80, 3);
      await expectDiscoveryAloneAsSql();
      await expectWordsAsSql();
    } finally {
      currentIndex = built;
      await rm(dir, { recursive: true, force: true });
    }
  }, 240_000);

  it('with its scratch sets held by the bit kernel (as in stores past 65,536 creators), answers exactly like SQL', async () => {
    const built = currentIndex;
    setBitKernelFrom(0);
    try {
      currentIndex = built.withBroadShare();
      await expectSameAsSql(80, 5);
      await expectDiscoveryAloneAsSql();
      await expectBunchedAsSql();
    } finally {
      setBitKernelFrom();
      currentIndex = built;
    }
  }, 240_000);

  it("with two audience answers cached, each dropped answer's bit array made into a later one, answers exactly like SQL", async () => {
    const built = currentIndex;
    setAudienceAnswersKept(2);
    try {
      currentIndex = await loadSearchIndex(t.store);
      await expectDiscoveryAloneAsSql();
      await expectSameAsSql(60, 9);
    } finally {
      setAudienceAnswersKept();
      currentIndex = built;
    }
  }, 240_000);

  it('stays right through merges, deletes and re-ingests (rebuilt for the new data version)', async () => {
    await t.store.run(`UPDATE creators SET niche = 'pets', followers = followers + 1, search_text = search_text || ' moved'
      WHERE creator_id % 7 = 0`);
    await t.store.run('DELETE FROM audience WHERE creator_id % 11 = 0');
    await t.store.run('DELETE FROM creators WHERE creator_id % 11 = 0');
    await t.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, country, followers, engagement_rate, verified, updated_at, search_text)
      SELECT 900000 + i, 'youtube', 'fresh' || i, 'food', 'NZ', 1000 * i, i % 9, i % 2 = 0, now()::TIMESTAMP, 'fresh' || i || ' kiwi cook'
      FROM range(1, 200) t(i)`);
    currentIndex = await loadSearchIndex(t.store);
    await expectSameAsSql(50, 2);
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
    await t.store.run(
      `INSERT INTO audience SELECT creator_id, 'country', 'NZ', 33, now()::TIMESTAMP FROM creators WHERE creator_id % 23 = 4`,
    );
    await t.store.run(`UPDATE creators SET sponsored_posts = 0, has_contact = NOT coalesce(has_contact, false),
        last_posted_at = TIMESTAMP '2026-11-20 00:00:00', reels_avg_views = 123456, avg_views = 654321
      WHERE creator_id % 31 = 6 AND creator_id < 900000`);
    await setContentLists(t.store, 'creator_id % 31 = 6 AND creator_id < 900000', {
      hashtags: "list_append(hashtags, 'deltatag')",
      caption_words: "['deltacaption']",
      brands: "['@deltabrand']",
      linked_platforms: "['twitch']",
    });
    await t.store.run(
      `UPDATE audience SET pct = pct + 5 WHERE dimension IN ('gender', 'age', 'interest', 'quality', 'language') AND creator_id % 43 = 7`,
    );
    await t.store.run(
      `INSERT INTO audience SELECT creator_id, 'interest', 'deltainterest', 12.5, now()::TIMESTAMP FROM creators WHERE creator_id % 47 = 8`,
    );
    await t.store.run(`UPDATE creators SET price_post_usd = CASE WHEN price_post_usd IS NULL THEN 77.5 ELSE price_post_usd * 3 END
      WHERE creator_id % 41 = 10 AND creator_id < 900000`);
    await t.store.run('DELETE FROM creators WHERE creator_id % 29 = 5 AND creator_id < 900000');
    await t.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, country, followers, engagement_rate, verified, updated_at, search_text)
      SELECT 950000 + i, 'tiktok', 'delta' || i, 'astrology', 'IS', 500 * i, i % 7, i % 3 = 0, now()::TIMESTAMP, 'delta' || i || ' deltaword'
      FROM range(1, 60) t(i)`);
    const delta = await loadSearchDelta(t.store, base.baseFingerprints(), 100_000);
    expect(delta).not.toBeNull();
    expect(delta!.rows.length).toBeGreaterThan(100);
    currentIndex = base.withDelta(delta!);
    await expectSameAsSql(60, 3);
    const sort = { key: 'engagement_rate' as const, descending: false };
    const content: CreatorSearchFilters[] = [
      { hashtags: ['deltatag'] },
      { keywords: ['deltacap'] },
      { brands: ['@deltabrand'] },
      { has_sponsored_posts: false },
      { has_contact: true },
      { also_on: ['twitch'] },
      { last_posted_days_max: 2 },
      { reels_views_min: 123456 },
      { avg_views_min: 654321 },
      { audience_interest: 'deltainterest', audience_interest_min_pct: 12.5 },
      { audience_gender: 'female', audience_gender_min_pct: 60 },
      { audience_age: ['18-24', '25-34'], audience_age_min_pct: 55 },
      { audience_real_min_pct: 80 },
      { price_max: 77.5 },
    ];
    for (const filters of [
      { niche: ['astrology'] },
      { q: ['deltaword'] },
      { audience_country: 'NZ', audience_country_min_pct: 30 },
      {},
      ...content,
    ]) {
      expect(viaIndex(filters, sort, 40), JSON.stringify(filters)).toEqual(await viaSql(filters, sort, 40));
    }
    expect(viaIndex({ hashtags: ['deltatag'] }, sort, 1).total).toBeGreaterThan(10);
    for (const descending of [false, true]) {
      const byPrice = { key: 'price' as const, descending };
      for (const filters of [{}, { price_max: 77.5 }, { niche: ['astrology'], price_max: 1000 }])
        expect(viaIndex(filters, byPrice, 40), JSON.stringify({ filters, descending })).toEqual(
          await viaSql(filters, byPrice, 40),
        );
    }
    const excluded = new Exclusion('delta', Int32Array.from(vocabulary.ids.filter((id) => id % 3 === 0)));
    for (const filters of [{ exclude_list: ['lst_a'] }, { exclude_list: ['lst_a'], niche: ['astrology'] }]) {
      const context = searchContext(NOW, excluded);
      expect(viaIndex(filters, sort, 40, undefined, context)).toEqual(await viaSql(filters, sort, 40, context));
    }
    // past the change budget the caller rebuilds instead
    expect(await loadSearchDelta(t.store, base.baseFingerprints(), 10)).toBeNull();
  }, 120_000);

  it('a change of price alone is seen by a delta; sort=price pages like SQL with the creators without an estimate last both ways', async () => {
    const base = await loadSearchIndex(t.store);
    await t.store.run(`UPDATE creators SET price_post_usd = CASE WHEN price_post_usd IS NULL THEN 123.45
        WHEN creator_id % 2 = 0 THEN NULL ELSE price_post_usd + 1 END
      WHERE creator_id % 43 = 11`);
    const changed = await t.store.all<{ id: number }>(
      'SELECT creator_id AS id FROM creators WHERE creator_id % 43 = 11 ORDER BY creator_id',
    );
    const delta = await loadSearchDelta(t.store, base.baseFingerprints(), 100_000);
    expect(delta!.rows.map((r) => r.creator_id).sort((a, b) => a - b)).toEqual(changed.map((r) => r.id));
    for (const index of [base, base.withDelta(delta!)]) {
      currentIndex = index === base ? await loadSearchIndex(t.store) : index;
      for (const descending of [false, true]) {
        const sort = { key: 'price' as const, descending };
        for (const filters of [{}, { niche: [vocabulary.niches[1]!] }, { price_max: 123.45 }]) {
          const viaIdx = walkIndex(filters, sort, 293);
          expect(viaIdx, JSON.stringify({ filters, descending })).toEqual(await walkSql(filters, sort, 293));
          // every creator once, the ones without an estimate after every priced one
          expect(new Set(viaIdx.map((r) => r.creator_id)).size).toBe(viaIdx.length);
          const firstNull = viaIdx.findIndex((r) => Math.abs(r.sort_value) === NULL_LAST);
          if (firstNull >= 0)
            expect(viaIdx.slice(firstNull).every((r) => Math.abs(r.sort_value) === NULL_LAST)).toBe(true);
        }
      }
    }
    expect(walkIndex({}, { key: 'price', descending: true }, 500).at(-1)?.sort_value).toBe(-NULL_LAST);
  }, 120_000);

  it('the service answers from the index only while it is current, and like SQL either way', async () => {
    const { indexed, sqlOnly } = await indexedAndSqlOnly(0);
    const request = {
      filters: { niche: ['food'], q: ['kiwi'] },
      sort: { key: 'followers' as const, descending: false },
      after: null,
      limit: 5,
    };
    expect(await indexed.search(request)).toEqual(await sqlOnly.search(request));
    // a change the index has not seen: the next search must still count it
    await t.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, country, followers, verified, updated_at, search_text)
      VALUES (990500, 'youtube', 'latekiwi', 'food', 'NZ', 7, false, now()::TIMESTAMP, 'latekiwi kiwi')`);
    const after = await indexed.search(request);
    expect(after).toEqual(await sqlOnly.search(request));
    expect(after.results).toBe(200);
  });

  it('a pricing model fitted is a new data version: cached price searches are dropped and the index is not used stale', async () => {
    const { indexed, sqlOnly } = await indexedAndSqlOnly(60_000);
    const request = {
      filters: { price_max: 500 },
      sort: { key: 'price' as const, descending: true },
      after: null,
      limit: 10,
    };
    const before = await indexed.search(request);
    expect(before).toEqual(await sqlOnly.search(request));
    // a pricing run rewrites prices without touching updated_at; its model row is what changes the version
    await t.store.run(`UPDATE creators SET price_post_usd = 499.99
      WHERE creator_id IN (SELECT creator_id FROM creators ORDER BY creator_id LIMIT 3)`);
    await t.store.run(`INSERT INTO pricing_models VALUES ('test-1', TIMESTAMP '2026-11-21 07:00:00', 10, '{}', '{}')`);
    const after = await indexed.search(request);
    expect(after).toEqual(await sqlOnly.search(request));
    expect(after).not.toEqual(before);
  });

  it("names a handle's creators as the store's lookup does (by platform), a delta's changed handles too", async () => {
    const index = await loadSearchIndex(t.store);
    // every handle on more than one platform, a tenth of the others (the store's lookup is one query a handle),
    // and two that name no one
    const rows = await t.store.all<{ handle: string }>(
      `SELECT handle FROM creators GROUP BY handle HAVING count(*) > 1 OR hash(handle) % 10 = 0 ORDER BY handle`,
    );
    const handles = [...rows.map((r) => r.handle), '@nobody.here', ''];
    const fromStore = () => Promise.all(handles.map((h) => findByHandle(t.store, h, null)));
    expect(handles.map((h) => index.handleMatches(h))).toEqual(await fromStore());
    const [a, b] = await t.store.all<{ creator_id: number; handle: string }>(
      `SELECT creator_id, handle FROM creators WHERE platform IN ('instagram', 'youtube')
      QUALIFY row_number() OVER (PARTITION BY platform ORDER BY creator_id) = 1 ORDER BY platform DESC`,
    );
    handles.push(a!.handle, b!.handle);
    // the youtube creator takes the instagram creator's handle: that handle then names both, its own none
    await t.store.run('UPDATE creators SET handle = ? WHERE creator_id = ?', [b!.handle, a!.creator_id]);
    const changed = index.withDelta((await loadSearchDelta(t.store, index.baseFingerprints(), 100_000))!);
    expect(handles.map((h) => changed.handleMatches(h))).toEqual(await fromStore());
    expect(changed.handleMatches(b!.handle).map((m) => m.platform)).toEqual(['instagram', 'youtube']);
    expect(changed.handleMatches(a!.handle)).toEqual([]);
  });
});

/** A service answering from a built index (results cached `cacheTtlMs`) and one that only runs SQL, to hold side by side. */
async function indexedAndSqlOnly(
  cacheTtlMs: number,
): Promise<{ indexed: CreatorSearchService; sqlOnly: CreatorSearchService }> {
  const indexed = new CreatorSearchService(t.store, { cacheTtlMs, projection: false, versionCheckMs: 0 });
  const sqlOnly = new CreatorSearchService(t.store, {
    cacheTtlMs: 0,
    projection: false,
    index: false,
    versionCheckMs: 0,
  });
  await indexed.buildIndex();
  return { indexed, sqlOnly };
}
