import { describe, expect, it } from 'vitest';
import type { ProfileBenchmarks } from '../../data/creators/creator-profile.mapper.js';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { pipelineForEntity } from '../../pipelines/registry.js';
import { filesSource } from '../../pipelines/sources/files.source.js';
import { writeCsv } from '../fixtures/pipelines/files.js';
import { profileOf, testAppForFile, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;
testAppForFile({ creators: 400 }, (app, appKey) => {
  t = app;
  key = appKey;
});

const METRICS = {
  engagement_rate: 'engagement_rate',
  growth_30d: 'growth_30d_pct',
  avg_views: 'avg_views',
  authenticity_score: 'authenticity_score',
} as const;

async function benchmarks(handle: string, platform: string): Promise<ProfileBenchmarks> {
  return (await profileOf(t, { handle, platform }, key)).benchmarks as ProfileBenchmarks;
}

/** The creator's percentiles by a direct percent_rank over the creators inside the peer group the profile names. */
async function sqlBenchmarks(
  creatorId: number,
  g: ProfileBenchmarks['peer_group'],
): Promise<Record<keyof typeof METRICS | 'n', number | null>> {
  const params = [creatorId, g.platform, g.niche, g.followers_from, g.followers_to];
  const inGroup = 'platform = $2 AND niche = $3 AND followers >= $4 AND ($5::BIGINT IS NULL OR followers < $5::BIGINT)';
  const out: Record<string, number | null> = {
    n:
      Number(
        (
          await t.store.one<{ n: number }>(
            `SELECT count(*) AS n FROM creators WHERE ${inGroup} AND creator_id <> $1`,
            params,
          )
        )?.n,
      ) + 1,
  };
  for (const [name, column] of Object.entries(METRICS)) {
    const row = await t.store.one<{ p: number }>(
      `SELECT p FROM (SELECT creator_id, round(percent_rank() OVER (ORDER BY ${column}) * 100, 1) AS p
      FROM creators WHERE ${inGroup} AND ${column} IS NOT NULL) WHERE creator_id = $1`,
      params,
    );
    out[name] = row?.p ?? null;
  }
  return out as Record<keyof typeof METRICS | 'n', number | null>;
}

async function expectMatchesSql(creatorId: number, b: ProfileBenchmarks): Promise<void> {
  const sql = await sqlBenchmarks(creatorId, b.peer_group);
  expect({
    creators: b.peer_group.creators,
    engagement_rate: b.engagement_rate,
    growth_30d: b.growth_30d,
    avg_views: b.avg_views,
    authenticity_score: b.authenticity_score,
  }).toEqual({
    creators: sql.n,
    engagement_rate: sql.engagement_rate,
    growth_30d: sql.growth_30d,
    avg_views: sql.avg_views,
    authenticity_score: sql.authenticity_score,
  });
}

interface Member extends Record<string, unknown> {
  creator_id: number;
  platform: string;
  handle: string;
  followers: number;
}

/**
 * The lowest- and highest-engagement creators of the largest platform × niche:
 * one peer group at this store's size (400 creators, fewer than 300 per pair).
 */
async function groupEnds(): Promise<{ low: Member; high: Member }> {
  const rows =
    await t.store.all<Member>(`WITH pair AS (SELECT platform, niche FROM creators WHERE engagement_rate IS NOT NULL
      GROUP BY ALL ORDER BY count(*) DESC, platform, niche LIMIT 1)
    SELECT creator_id, platform, handle, followers FROM creators JOIN pair USING (platform, niche)
    WHERE engagement_rate IS NOT NULL ORDER BY engagement_rate, creator_id`);
  return { low: rows[0]!, high: rows.at(-1)! };
}

describe('profile benchmarks', () => {
  it('names the peer group and gives each percentile as percent_rank × 100 among those peers', async () => {
    const { low, high } = await groupEnds();
    for (const c of [low, high]) {
      const b = await benchmarks(c.handle, c.platform);
      expect(b.peer_group.platform).toBe(c.platform);
      expect(c.followers).toBeGreaterThanOrEqual(b.peer_group.followers_from);
      await expectMatchesSql(c.creator_id, b);
    }
    expect((await benchmarks(low.handle, low.platform)).engagement_rate).toBe(0);
    expect((await benchmarks(high.handle, high.platform)).engagement_rate).toBe(100);
  });

  it("a posts load moves the percentiles of the loaded creator's peer group", async () => {
    const { low, high } = await groupEnds();
    const at = new Date(Date.now() - 86_400_000).toISOString();
    const posts = Array.from({ length: 12 }, (_, i) => ({
      platform: low.platform,
      handle: low.handle,
      post_id: `bench-${i}`,
      posted_at: at,
      type: 'post',
      likes: low.followers * 10,
      comments: 0,
    }));
    const file = writeCsv(
      t.dir,
      'bench-posts.csv',
      ['platform', 'handle', 'post_id', 'posted_at', 'type', 'likes', 'comments'],
      posts,
    );
    const outcome = await runPipeline({ store: t.store, config: t.config }, pipelineForEntity('posts'), {
      source: filesSource([{ entity: 'posts', file, format: 'csv' }]),
    });
    expect(outcome.runs[0]?.status).toBe('succeeded');
    const moved = await benchmarks(low.handle, low.platform);
    const overtaken = await benchmarks(high.handle, high.platform);
    expect([moved.engagement_rate, overtaken.engagement_rate! < 100]).toEqual([100, true]);
    await expectMatchesSql(low.creator_id, moved);
    await expectMatchesSql(high.creator_id, overtaken);
  });
});
