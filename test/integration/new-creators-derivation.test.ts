import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeModel } from '../../data/authenticity/model-registry.queries.js';
import { scoringSelectSql, storedScoreSelectSql, withPeerStatsSql } from '../../data/authenticity/scoring.queries.js';
import { recomputeCreatorMetrics } from '../../data/derive/creator-metrics.js';
import { SCORED_STEP } from '../../pipelines/engine/runner.js';
import type { LoadProgress } from '../../pipelines/engine/pipeline.js';
import { ingestFiles } from '../../pipelines/ingest.service.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestStore;

beforeAll(async () => {
  // creators with history, posts and audience, so peer groups, spikes and audience signals all have data
  t = await createTestStore({ creators: 120 });
});
afterAll(async () => {
  await t.cleanup();
});

/** A CSV of `count` creators nobody has seen, spread over platforms, countries, sizes and following counts (some missing). */
async function newCreatorsFile(prefix: string, count: number): Promise<string> {
  const file = join(t.dir, `creators-${prefix}.csv`);
  await t.store.run(
    `COPY (
      SELECT (['instagram', 'tiktok', 'youtube'])[1 + i % 3] AS platform, '@${prefix}' || i AS handle, 'New ' || i AS display_name,
        CASE WHEN i % 4 > 0 THEN 'Notes ' || i END AS bio, 'food' AS niche, (['US', 'GB', 'DE'])[1 + i % 3] AS country, NULL AS city,
        (['en', 'de'])[1 + i % 2] AS language, 500 + (i * 7919) % 3000000 AS followers, CASE WHEN i % 5 > 0 THEN (i * 31) % 9000 END AS "following",
        i % 50 AS posts_count, i % 7 = 0 AS verified, TIMESTAMP '2026-11-21 12:00:00' AS updated_at
      FROM range(?) t(i)
    ) TO '${file}' (HEADER)`,
    [count],
  );
  return file;
}

const STORED = `creator_id, authenticity_score, fake_followers_pct, authenticity_verdict, search_text, engagement_rate,
  growth_30d_pct, audience_us_pct`;

async function storedColumns(prefix: string): Promise<Array<Record<string, unknown>>> {
  return t.store.all(`SELECT ${STORED} FROM creators WHERE handle LIKE ? ORDER BY creator_id`, [`@${prefix}%`]);
}

async function featureRows(prefix: string): Promise<Array<Record<string, unknown>>> {
  return t.store.all(
    `SELECT * EXCLUDE (computed_at) FROM authenticity_features
    WHERE creator_id IN (SELECT creator_id FROM creators WHERE handle LIKE ?) ORDER BY creator_id`,
    [`@${prefix}%`],
  );
}

describe('the derivation of a load of brand-new creators', () => {
  it('gives the new creators exactly the scores, features and derived columns a full precompute gives them', async () => {
    const steps: string[] = [];
    const [outcome] = await ingestFiles(
      { store: t.store, config: t.config },
      [await newCreatorsFile('fast', 90)],
      'creators',
      (p: LoadProgress) => steps.push(p.step),
    );
    expect(outcome?.runs[0]).toMatchObject({ status: 'succeeded', rows_loaded: 90, warnings: [] });
    expect(steps.indexOf(SCORED_STEP)).toBeGreaterThan(steps.indexOf('deriving creators'));
    const fast = { stored: await storedColumns('fast'), features: await featureRows('fast') };
    const peers = await t.store.all(
      'SELECT metric, peer_key, n, median, mad, basis FROM authenticity_peer_stats ORDER BY ALL',
    );
    expect(fast.stored).toHaveLength(90);
    expect(fast.features).toHaveLength(90);
    expect(fast.stored.every((r) => r['authenticity_score'] !== null && r['search_text'] !== null)).toBe(true);

    await t.store.transaction((tx) => recomputeCreatorMetrics(tx, 'all'));
    expect(await storedColumns('fast')).toEqual(fast.stored);
    expect(await featureRows('fast')).toEqual(fast.features);
    // 90 new creators of 210 is past the 5 % share: the fast path rebuilt the statistics the full precompute builds
    expect(
      await t.store.all('SELECT metric, peer_key, n, median, mad, basis FROM authenticity_peer_stats ORDER BY ALL'),
    ).toEqual(peers);
  });

  it('derives new creators the general way when rows already name their ids (left by creators no longer stored)', async () => {
    const next = (await t.store.one<{ id: number }>('SELECT max(creator_id) + 1 AS id FROM creators'))?.id ?? 0;
    await t.store.run(
      `INSERT INTO posts (creator_id, post_id, posted_at, type, likes, comments, views)
      SELECT ?, 'orphan-' || i, TIMESTAMP '2026-11-01' + INTERVAL (i) DAY, 'photo', 100 + i, 10, 1000 FROM range(6) t(i)`,
      [next],
    );
    const [outcome] = await ingestFiles(
      { store: t.store, config: t.config },
      [await newCreatorsFile('heir', 3)],
      'creators',
    );
    expect(outcome?.runs[0]).toMatchObject({ status: 'succeeded', rows_loaded: 3, warnings: [] });
    const heir = await t.store.one<{ id: number; avg_likes: number | null; scored: boolean }>(
      "SELECT creator_id AS id, avg_likes, authenticity_checked_at IS NOT NULL AS scored FROM creators WHERE handle = '@heir0'",
    );
    expect(heir).toEqual({ id: next, avg_likes: 102.5, scored: true });
    expect((await featureRows('heir')).map((f) => f['posts_n'])).toEqual([6, 0, 0]);
  });
});

describe('the stored-score query', () => {
  it('answers, for every creator, the score, fake-follower share and verdict of the full scoring query to the last bit', async () => {
    const model = await activeModel(t.store);
    const source = withPeerStatsSql('authenticity_features');
    const differing = await t.store.one<{ n: number; total: number }>(`SELECT count(*) FILTER (WHERE
        l.authenticity_score IS DISTINCT FROM f.authenticity_score OR l.fake_followers_pct IS DISTINCT FROM f.fake_followers_pct
        OR l.verdict IS DISTINCT FROM f.verdict OR l.creator_id IS NULL) AS n, count(*) AS total
      FROM (${scoringSelectSql(source, model)}) f LEFT JOIN (${storedScoreSelectSql(source, model)}) l USING (creator_id)`);
    expect(differing?.total).toBeGreaterThan(200);
    expect(differing?.n).toBe(0);
    const spread = await t.store.one<{ scores: number }>(
      'SELECT count(DISTINCT authenticity_score) AS scores FROM creators',
    );
    expect(spread?.scores).toBeGreaterThan(10);
  });
});
