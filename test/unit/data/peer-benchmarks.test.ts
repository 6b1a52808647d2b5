import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectBenchmarks, type BenchmarkRow } from '../../../data/creators/creator-profile.queries.js';
import {
  BASE_BAND_EDGES,
  BENCHMARK_METRICS,
  MIN_PEER_GROUP,
  refreshPeerBenchmarks,
} from '../../../data/derive/peer-benchmarks.js';
import type { CreatorScope } from '../../../data/sql.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';
import { prng } from '../../../core/prng.js';

let t: TestStore;
beforeAll(async () => {
  t = await createTestStore();
});
afterAll(async () => {
  await t.cleanup();
});

interface StoreShape {
  creators: number;
  platforms: number;
  niches: number;
  nullShare: number;
  levels: number;
}

/**
 * A random store: creators on a few platforms and niches, followers log-uniform
 * from 100 to 20M, each metric drawn from `levels` values (ties) and missing for
 * a `nullShare` of creators. Set-based, from `hash(id, seed)`.
 */
async function randomStore(seed: number, s: StoreShape): Promise<void> {
  await t.store.run('DELETE FROM creators');
  await t.store.run('DELETE FROM peer_groups');
  const r = (salt: number): string => `(hash(i, ${seed}, ${salt}) % 1000000) / 1000000.0`;
  const metric = (salt: number): string =>
    `CASE WHEN ${r(salt)} < ${s.nullShare} THEN NULL ELSE floor(${r(salt + 100)} * ${s.levels}) * 1.5 END`;
  await t.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, followers, updated_at,
      engagement_rate, growth_30d_pct, avg_views, authenticity_score)
    SELECT i, ['instagram', 'tiktok', 'youtube', 'twitch', 'x'][1 + floor(${r(1)} * ${s.platforms})::INTEGER], '@c' || i,
      ['beauty', 'food', 'tech', 'music'][1 + floor(${r(2)} * ${s.niches})::INTEGER],
      round(100 * pow(200000, ${r(3)}))::BIGINT, TIMESTAMP '2026-11-01', ${metric(10)}, ${metric(20)}, ${metric(30)}, ${metric(40)}
    FROM range(1, ${s.creators + 1}) t(i)`);
}

/** Every creator's percentile of `column` by a direct `percent_rank` over its peer group. */
async function sqlPercentiles(column: string): Promise<Map<number, number | null>> {
  const rows = await t.store.all<{ creator_id: number; p: number | null }>(`SELECT c.creator_id,
      CASE WHEN c.${column} IS NOT NULL THEN round(percent_rank() OVER (
        PARTITION BY c.platform, c.niche, g.followers_from, c.${column} IS NULL ORDER BY c.${column}) * 100, 1) END AS p
    FROM creators c JOIN peer_groups g ON g.platform = c.platform AND g.niche = c.niche
      AND c.followers >= g.followers_from AND (g.followers_to IS NULL OR c.followers < g.followers_to)`);
  return new Map(rows.map((r) => [Number(r.creator_id), r.p === null ? null : Number(r.p)]));
}

async function benchmarksOf(ids: readonly number[]): Promise<Map<number, BenchmarkRow>> {
  const out = new Map<number, BenchmarkRow>();
  for (const id of ids) {
    const row = await selectBenchmarks(t.store, id);
    if (!row) throw new Error(`creator ${id} has no peer group`);
    out.set(id, row);
  }
  return out;
}

async function expectPercentilesMatchSql(ids: readonly number[]): Promise<void> {
  const api = await benchmarksOf(ids);
  for (const m of BENCHMARK_METRICS) {
    const expected = await sqlPercentiles(m.column);
    for (const id of ids) expect([id, m.name, api.get(id)?.[m.name]]).toEqual([id, m.name, expected.get(id)]);
  }
}

/** The refresh as a load runs it: inside a transaction. */
function refresh(scope: CreatorScope): Promise<number> {
  return t.store.transaction((tx) => refreshPeerBenchmarks(tx, scope));
}

function sample(random: () => number, n: number, of: number): number[] {
  return Array.from({ length: n }, () => 1 + Math.floor(random() * of));
}

describe('peer benchmarks', () => {
  it('on random stores, every percentile equals percent_rank × 100 over the peer group in SQL', async () => {
    const random = prng(27);
    for (let seed = 1; seed <= 6; seed++) {
      const shape: StoreShape = {
        creators: 200 + Math.floor(random() * 3000),
        platforms: 1 + Math.floor(random() * 3),
        niches: 1 + Math.floor(random() * 3),
        nullShare: random() * 0.4,
        levels: 2 + Math.floor(random() * 200),
      };
      await randomStore(seed, shape);
      await refresh('all');
      await expectPercentilesMatchSql(sample(random, 40, shape.creators));
    }
  });

  it('tiles each platform × niche with groups of at least 300 creators, merged from the smallest band up', async () => {
    await randomStore(99, { creators: 4000, platforms: 2, niches: 2, nullShare: 0.1, levels: 50 });
    await refresh('all');
    const groups = await t.store.all<{
      platform: string;
      niche: string;
      followers_from: number;
      followers_to: number | null;
      creators: number;
      actual: number;
      pair_total: number;
      groups_in_pair: number;
      is_last: boolean;
      without_top_band: number | null;
    }>(`
      WITH g AS (SELECT *, count(*) OVER (PARTITION BY platform, niche) AS groups_in_pair,
          followers_to IS NULL AS is_last FROM peer_groups),
        m AS (SELECT g.platform, g.niche, g.followers_from, count(c.creator_id) AS actual, max(c.followers) AS top FROM g
          LEFT JOIN creators c ON c.platform = g.platform AND c.niche = g.niche AND c.followers >= g.followers_from
            AND (g.followers_to IS NULL OR c.followers < g.followers_to) GROUP BY ALL)
      SELECT g.platform, g.niche, g.followers_from, g.followers_to, g.creators, g.groups_in_pair, g.is_last, m.actual,
        (SELECT count(*) FROM creators c WHERE c.platform = g.platform AND c.niche = g.niche) AS pair_total,
        (SELECT count(*) FROM creators c WHERE c.platform = g.platform AND c.niche = g.niche AND c.followers >= g.followers_from
          AND c.followers < (SELECT max(e) FROM unnest([${BASE_BAND_EDGES.join(', ')}]) u(e) WHERE e <= m.top)) AS without_top_band
      FROM g JOIN m USING (platform, niche, followers_from) ORDER BY platform, niche, followers_from`);
    expect(groups.length).toBeGreaterThan(4);
    let covered = 0;
    for (const [i, g] of groups.entries()) {
      expect(Number(g.creators)).toBe(Number(g.actual));
      if (Number(g.groups_in_pair) > 1) expect(Number(g.creators)).toBeGreaterThanOrEqual(MIN_PEER_GROUP);
      else expect(Number(g.creators)).toBe(Number(g.pair_total));
      const prev = groups[i - 1];
      if (prev?.platform === g.platform && prev.niche === g.niche)
        expect(Number(g.followers_from)).toBe(Number(prev.followers_to));
      else expect(Number(g.followers_from)).toBe(0);
      // greedy: a group other than the last would fall under the minimum without its top base band
      if (!g.is_last) expect(Number(g.without_top_band)).toBeLessThan(MIN_PEER_GROUP);
      covered += Number(g.creators);
    }
    expect(covered).toBe(4000);
  });

  it('a refresh scoped to touched creators rewrites their groups only and leaves every percentile as SQL has it', async () => {
    await randomStore(7, { creators: 3000, platforms: 2, niches: 2, nullShare: 0.1, levels: 100 });
    await refresh('all');
    const before = await t.store.all<{ key: string; lists: string }>(
      `SELECT platform || niche || followers_from AS key, engagement_rate::VARCHAR AS lists FROM peer_groups ORDER BY key`,
    );
    const target = await t.store.one<{ creator_id: number }>(
      'SELECT creator_id FROM creators WHERE engagement_rate IS NOT NULL ORDER BY engagement_rate LIMIT 1',
    );
    const id = Number(target!.creator_id);
    const low = await selectBenchmarks(t.store, id);
    await t.store.run('UPDATE creators SET engagement_rate = 10000 WHERE creator_id = ?', [id]);
    const rewritten = await t.store.transaction(async (tx) => {
      await tx.run('CREATE OR REPLACE TEMP TABLE touched_test AS SELECT ?::INTEGER AS creator_id', [id]);
      return refreshPeerBenchmarks(tx, { table: 'touched_test' });
    });
    expect(rewritten).toBe(1);
    const high = await selectBenchmarks(t.store, id);
    expect([low?.engagement_rate, high?.engagement_rate]).toEqual([0, 100]);
    const after = await t.store.all<{ key: string; lists: string }>(
      `SELECT platform || niche || followers_from AS key, engagement_rate::VARCHAR AS lists FROM peer_groups ORDER BY key`,
    );
    const ownKey = `${high!.platform}${high!.niche}${high!.followers_from}`;
    expect(after.filter((g) => g.key !== ownKey)).toEqual(before.filter((g) => g.key !== ownKey));
    await expectPercentilesMatchSql([id, ...sample(prng(3), 30, 3000)]);
  });
});
