import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recomputeAuthenticity } from '../../../data/authenticity/precompute.js';
import { detectPurges } from '../../../data/authenticity/purge-detection.queries.js';
import { TEST_AS_OF, createTestStore, type TestStore } from '../../helpers/store.js';

let t: TestStore;

beforeEach(async () => {
  t = await createTestStore();
});
afterEach(async () => {
  await t.cleanup();
});

/**
 * `perPlatform` creators on each platform with 300 days of history: growth of
 * 0–0.1 %/day, daily noise of ±0.4 % (normal-ish, per creator and day: about 4 in
 * 10 creators fall on any day, as in the demo data), a few bots each (1–5 %), and
 * on each planted day (days ago) of a platform a purge takes 2–30 % of those bots.
 */
async function seed(perPlatform: number, purges: Record<string, readonly number[]>): Promise<void> {
  const platforms = Object.keys(purges);
  await t.store.run(
    `CREATE OR REPLACE TEMP TABLE pc AS
    SELECT row_number() OVER () AS id, platform,
      (hash(i, platform, 'g') % 1000) / 1000.0 * 0.001 AS growth,
      0.01 + (hash(i, platform, 'b') % 1000) / 1000.0 * 0.04 AS bots
    FROM (VALUES ${platforms.map((p) => `('${p}')`).join(', ')}) p(platform), range(0, $n) r(i)`,
    { n: perPlatform },
  );
  await t.store.run(
    `INSERT INTO creators (creator_id, platform, handle, niche, country, language, followers, following, posts_count, verified, updated_at)
    SELECT id, platform, 'c' || id, 'fitness', 'US', 'en', 50000, 400, 100, false, $as_of::TIMESTAMP FROM pc`,
    { as_of: TEST_AS_OF },
  );
  const days = Object.entries(purges).flatMap(([platform, ago]) => ago.map((d) => `('${platform}', ${d})`));
  const purgeRows = days.length
    ? `SELECT * FROM (VALUES ${days.join(', ')}) v(platform, ago)`
    : 'SELECT NULL::VARCHAR AS platform, NULL::INTEGER AS ago WHERE false';
  await t.store.run(
    `INSERT INTO follower_history
    SELECT id, $as_of::DATE - d::INTEGER, round(50000 * exp(sum(step) OVER (PARTITION BY id ORDER BY d DESC)))::BIGINT, 400
    FROM (SELECT pc.id, d, CASE WHEN d = 299 THEN 0 ELSE growth
        -- the sum of three uniforms: a bell of SD ≈ 0.4 %
        + 0.0069 * ((hash(id, d, 1) % 1000 + hash(id, d, 2) % 1000 + hash(id, d, 3) % 1000) / 1000.0 - 1.5)
        + CASE WHEN EXISTS (SELECT 1 FROM (${purgeRows}) pd WHERE pd.platform = pc.platform AND pd.ago = d)
          THEN ln(1 - bots * (0.02 + 0.28 * (hash(id, d, 'p') % 1000) / 1000.0)) ELSE 0 END
        END AS step
      FROM pc, range(0, 300) r(d))`,
    { as_of: TEST_AS_OF },
  );
}

async function detected(): Promise<string[]> {
  const rows = await t.store.all<{ day: string }>(
    `SELECT platform || ' ' || ($as_of::DATE - purge_date) AS day FROM platform_purges WHERE source = 'detected' ORDER BY 1`,
    { as_of: TEST_AS_OF },
  );
  return rows.map((r) => r.day);
}

describe('purge detection from the follower history', () => {
  it('finds the planted purge days of each platform and no other day', async () => {
    await seed(400, { instagram: [40, 170], tiktok: [95], youtube: [] });
    expect(await t.store.transaction((tx) => detectPurges(tx))).toBe(3);
    expect(await detected()).toEqual(['instagram 170', 'instagram 40', 'tiktok 95']);
  });

  it('reports no day in a store without purges', async () => {
    await seed(400, { instagram: [], tiktok: [], youtube: [] });
    expect(await t.store.transaction((tx) => detectPurges(tx))).toBe(0);
  });

  it('keeps given days authoritative: a platform with given days gets no detected ones', async () => {
    await seed(400, { instagram: [40], tiktok: [95] });
    await t.store.run(`INSERT INTO platform_purges (platform, purge_date) VALUES ('instagram', $as_of::DATE - 41)`, {
      as_of: TEST_AS_OF,
    });
    expect(await t.store.transaction((tx) => detectPurges(tx))).toBe(1);
    expect(await detected()).toEqual(['tiktok 95']);
    // detection again replaces its own rows, never the given ones
    expect(await t.store.transaction((tx) => detectPurges(tx))).toBe(1);
    const given = await t.store.all(`SELECT platform FROM platform_purges WHERE source IS DISTINCT FROM 'detected'`);
    expect(given).toEqual([{ platform: 'instagram' }]);
  });

  it('runs at a full recompute, before the features, which read the detected days', async () => {
    await seed(300, { instagram: [40], tiktok: [] });
    await t.store.transaction((tx) => recomputeAuthenticity(tx, 'all'));
    expect(await detected()).toEqual(['instagram 40']);
    const rows = await t.store.all<{ platform: string; evaluated: number }>(
      `SELECT c.platform, count(f.purge_drop_pct)::INTEGER AS evaluated
      FROM creators c JOIN authenticity_features f USING (creator_id) GROUP BY 1 ORDER BY 1`,
    );
    expect(rows).toEqual([
      { platform: 'instagram', evaluated: 300 },
      { platform: 'tiktok', evaluated: 0 },
    ]);
  });
});
