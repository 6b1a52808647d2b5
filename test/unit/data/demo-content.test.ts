import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captionWordsSql, hashtagsSql, mentionsSql } from '../../../data/derive/caption-parse.js';
import { NICHE_BRANDS, NICHE_HASHTAGS } from '../../../data/seed/content-vocabulary.js';
import { createTestStore, figuresOf, type TestStore } from '../../helpers/store.js';

async function parse(caption: string | null): Promise<{ h: string[] | null; m: string[] | null; w: string[] | null }> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  try {
    const reader = await c.runAndReadAll(
      `SELECT ${hashtagsSql('$1')} AS h, ${mentionsSql('$1')} AS m, ${captionWordsSql('$1')} AS w`,
      [caption],
    );
    return reader.getRowObjectsJson()[0] as { h: string[] | null; m: string[] | null; w: string[] | null };
  } finally {
    c.closeSync();
  }
}

describe('caption parsing', () => {
  it('reads hashtags lower case without #, once each, and not inside words or HTML entities', async () => {
    const r = await parse('Leg day #LegDay #legday a#b &#39; #Ñandú_2 #fyp!');
    expect(r.h).toEqual(['fyp', 'legday', 'ñandú_2']);
  });

  it('reads mentions without @ and trailing punctuation, and not e-mail addresses', async () => {
    const r = await parse('thanks @IronPeak. and @jane.doe- mail me@mail.com (@x_y)');
    expect(r.m).toEqual(['ironpeak', 'jane.doe', 'x_y']);
  });

  it('reads words as runs of Unicode letters, digits and _, lower-cased', async () => {
    const r = await parse('Día #MealPrep — größte 2x_up 🔥');
    expect(r.w).toEqual(['día', 'mealprep', 'größte', '2x_up']);
  });

  it('answers empty lists for a caption without tags or mentions, and for none', async () => {
    expect(await parse('🔥🔥')).toMatchObject({ h: [], m: [], w: [] });
    expect(await parse(null)).toMatchObject({ h: [], m: [] });
  });
});

const N = 2000;
let t: TestStore;

beforeAll(async () => {
  t = await createTestStore({ creators: N });
});
afterAll(async () => {
  await t.cleanup();
});

describe('demo content', () => {
  it('stores the hashtags and mentions the loader would parse from each caption', async () => {
    const row = await t.store.one<{ bad: number; tagged: number; mentioned: number }>(`SELECT
      count(*) FILTER (WHERE hashtags IS DISTINCT FROM ${hashtagsSql('caption')} OR mentions IS DISTINCT FROM ${mentionsSql('caption')}) AS bad,
      count(*) FILTER (WHERE len(hashtags) > 0) AS tagged, count(*) FILTER (WHERE len(mentions) > 0) AS mentioned FROM posts`);
    expect(row?.bad).toBe(0);
    expect(row?.tagged).toBeGreaterThan(N * 24 * 0.5);
    expect(row?.mentioned).toBeGreaterThan(N * 24 * 0.05);
  });

  it('gives each niche its own long-tailed hashtags', async () => {
    const rows = await t.store.all<{ tag: string; n: number }>(`SELECT tag, count(*) AS n
      FROM (SELECT unnest(p.hashtags) AS tag FROM posts p JOIN creators c USING (creator_id) WHERE c.niche = 'fitness')
      GROUP BY tag ORDER BY n DESC`);
    const tags = rows.map((r) => r.tag);
    expect(tags.filter((x) => NICHE_HASHTAGS.fitness.includes(x)).length).toBeGreaterThan(30);
    expect(tags).toContain('fyp');
    const top = Number(rows[0]?.n ?? 0);
    const median = Number(rows[Math.floor(rows.length / 2)]?.n ?? 0);
    expect(top).toBeGreaterThan(median * 5);
  });

  it('sets a brand of the niche only on sponsored posts, and marks most sponsored posts #ad', async () => {
    const row = await figuresOf<'unsponsored_brand' | 'sponsored' | 'branded' | 'ad' | 'bad_brand'>(
      t.store,
      `SELECT
      count(*) FILTER (WHERE NOT sponsored AND brand IS NOT NULL) AS unsponsored_brand,
      count(*) FILTER (WHERE sponsored) AS sponsored, count(*) FILTER (WHERE sponsored AND brand IS NOT NULL) AS branded,
      count(*) FILTER (WHERE sponsored AND list_contains(hashtags, 'ad')) AS ad,
      count(*) FILTER (WHERE brand IS NOT NULL AND NOT regexp_full_match(brand, '@[a-z0-9._-]+')) AS bad_brand
      FROM posts`,
    );
    expect(row.unsponsored_brand).toBe(0);
    expect(row.bad_brand).toBe(0);
    expect(row.branded).toBeGreaterThan(row.sponsored * 0.7);
    expect(row.ad).toBeGreaterThan(row.sponsored * 0.4);
    const fitness = await t.store.all<{
      brand: string;
    }>(`SELECT DISTINCT brand FROM posts JOIN creators USING (creator_id)
      WHERE niche = 'fitness' AND brand IS NOT NULL`);
    expect(fitness.every((r) => NICHE_BRANDS.fitness.includes(r.brand))).toBe(true);
  });

  it('varies the sponsored share by creator with a long tail', async () => {
    const row = await figuresOf<'none' | 'heavy'>(
      t.store,
      `SELECT count(*) FILTER (WHERE sponsored_posts = 0) AS none,
      count(*) FILTER (WHERE sponsored_pct >= 30) AS heavy FROM creators`,
    );
    expect(row.none).toBeGreaterThan(N * 0.4);
    expect(row.heavy).toBeGreaterThan(N * 0.03);
  });

  it('writes captions in the creator language, some none, some emoji only, and every post type', async () => {
    const row = await t.store.one<{ none: number; emoji: number; es: number; types: string[] }>(`SELECT
      count(*) FILTER (WHERE caption IS NULL) AS none, count(*) FILTER (WHERE caption IS NOT NULL AND len(${captionWordsSql('caption')}) = 0) AS emoji,
      count(*) FILTER (WHERE c.language = 'es' AND regexp_matches(caption, '\\b(hoy|para|mejor|rutina)\\b')) AS es,
      list_sort(list(DISTINCT type)) AS types
      FROM posts JOIN creators c USING (creator_id)`);
    expect(Number(row?.none)).toBeGreaterThan(0);
    expect(Number(row?.emoji)).toBeGreaterThan(0);
    expect(Number(row?.es)).toBeGreaterThan(0);
    expect(row?.types).toEqual(['live', 'post', 'reel', 'short', 'story', 'video']);
  });

  it('gives about 30 % of creators contacts (more of the big ones) and about a fifth linked accounts', async () => {
    const row = await figuresOf<'contacts' | 'big' | 'big_contacts' | 'linked' | 'email_only' | 'site_only'>(
      t.store,
      `SELECT
      count(*) FILTER (WHERE has_contact) AS contacts, count(*) FILTER (WHERE followers > 1000000) AS big,
      count(*) FILTER (WHERE followers > 1000000 AND has_contact) AS big_contacts,
      count(*) FILTER (WHERE len(linked_platforms) > 0) AS linked,
      (SELECT count(*) FROM creator_contacts WHERE website IS NULL) AS email_only,
      (SELECT count(*) FROM creator_contacts WHERE email IS NULL) AS site_only
      FROM creators LEFT JOIN creator_content USING (creator_id)`,
    );
    const share = row.contacts / N;
    expect(share).toBeGreaterThan(0.22);
    expect(share).toBeLessThan(0.4);
    expect(row.big_contacts / row.big).toBeGreaterThan(share);
    expect(row.linked / N).toBeGreaterThan(0.15);
    expect(row.linked / N).toBeLessThan(0.3);
    expect(row.email_only).toBeGreaterThan(0);
    expect(row.site_only).toBeGreaterThan(0);
  });

  it('derives the content columns from the stored posts, contacts and links', async () => {
    const mismatch = await t.store.one<{ n: number }>(`WITH p AS (
        SELECT creator_id, count(*) AS n, count_if(sponsored) AS s, max(posted_at) AS last FROM posts GROUP BY creator_id
      ), h AS (
        SELECT creator_id, list(tag ORDER BY n DESC, tag) AS tags FROM (
          SELECT creator_id, tag, count(*) AS n FROM (SELECT creator_id, unnest(hashtags) AS tag FROM posts) GROUP BY ALL) GROUP BY creator_id
      ), w AS (
        SELECT creator_id, list(DISTINCT word ORDER BY word) AS words FROM (SELECT creator_id, unnest(${captionWordsSql('caption')}) AS word FROM posts)
        GROUP BY creator_id
      )
      SELECT count(*) AS n FROM creators c JOIN p USING (creator_id) LEFT JOIN h USING (creator_id) LEFT JOIN w USING (creator_id)
        LEFT JOIN creator_content cc ON cc.creator_id = c.creator_id
      WHERE c.sponsored_posts <> p.s OR c.sponsored_pct <> round(p.s * 100.0 / p.n, 2) OR c.last_posted_at <> p.last
        OR coalesce(cc.hashtags, []) <> coalesce(h.tags, []) OR coalesce(cc.caption_words, []) <> coalesce(w.words, [])
        OR c.has_contact <> EXISTS (SELECT 1 FROM creator_contacts k WHERE k.creator_id = c.creator_id)
        OR coalesce(cc.linked_platforms, []) <> coalesce((SELECT list(DISTINCT linked_platform ORDER BY linked_platform) FROM linked_accounts l
             WHERE l.creator_id = c.creator_id), [])`);
    expect(mismatch?.n).toBe(0);
  });
});
