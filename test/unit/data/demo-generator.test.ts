import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectSketchKeys } from '../../../data/audience-overlap/follower-sketch.queries.js';
import { sketchSlotsOf } from '../../../data/audience-overlap/sketch-slots.js';
import { ensureDemoAccount } from '../../../data/seed/demo-account.js';
import { seedDemoData } from '../../../data/seed/demo-generator.js';
import { NICHES } from '../../../data/seed/reference-data.js';
import { TEST_AS_OF, createTestStore, type TestStore } from '../../helpers/store.js';

const N = 3000;
/** The size the determinism test seeds twice: small, as a second seed costs its whole time. */
const SMALL = 300;
let a: TestStore;
/** The run's seeded store of SMALL creators (made by whichever test process asked first), and two seeded here. */
let template: TestStore;
let again: TestStore;
let other: TestStore;

/** An empty store seeded in this process with `seed`. */
async function seededHere(seed: number): Promise<TestStore> {
  const t = await createTestStore();
  const account = await ensureDemoAccount(t.store);
  await seedDemoData(t.store, { creators: SMALL, seed, asOf: TEST_AS_OF, demoAccountId: account.account_id });
  return t;
}

beforeAll(async () => {
  [a, template, again, other] = await Promise.all([
    createTestStore({ creators: N }),
    createTestStore({ creators: SMALL }),
    seededHere(42),
    seededHere(7),
  ]);
});
afterAll(async () => {
  await Promise.all([a.cleanup(), template.cleanup(), again.cleanup(), other.cleanup()]);
});

const FINGERPRINT = `SELECT
  (SELECT sum(hash(creator_id, platform, handle, followers, following, engagement_rate, verified, niche, country, bio)) FROM creators) AS creators,
  (SELECT sum(hash(creator_id, date, followers, following)) FROM follower_history) AS history,
  (SELECT sum(hash(creator_id, post_id, likes, comments, views, posted_at)) FROM posts) AS posts,
  (SELECT sum(hash(creator_id, dimension, key, pct)) FROM audience) AS audience,
  (SELECT sum(hash(campaign_id, date, creator_id, impressions, spend)) FROM campaign_metrics) AS metrics`;

describe('demo generator', () => {
  it('gives the same data for the same seed and different data for another', async () => {
    // two seeds made apart (the run's template and one here), not two copies of one file
    const [fa, fb, fo] = await Promise.all([
      template.store.one(FINGERPRINT),
      again.store.one(FINGERPRINT),
      other.store.one(FINGERPRINT),
    ]);
    expect(Number(fa?.['creators'] ?? 0)).not.toBe(0);
    expect(fa).toEqual(fb);
    expect(fa?.['creators']).not.toEqual(fo?.['creators']);
  });

  it('fills the sketch slots of every sampled creator, so a fresh store answers overlaps from them', async () => {
    const ids = (await again.store.all<{ creator_id: number }>('SELECT creator_id FROM follower_sketches')).map(
      (r) => r.creator_id,
    );
    expect(ids.length).toBeGreaterThan(0);
    const slots = await sketchSlotsOf(again.store);
    const trusted = await slots!.read(await selectSketchKeys(again.store, ids));
    expect([...trusted.keys()].sort((x, y) => x - y)).toEqual([...ids].sort((x, y) => x - y));
  });

  it('makes log-normal followers with a heavy tail between 1k and 200M', async () => {
    const q = await a.store.one<{ p10: number; p50: number; p90: number; p99: number; mn: number; mx: number }>(`SELECT
      quantile_cont(followers, 0.1) AS p10, median(followers) AS p50, quantile_cont(followers, 0.9) AS p90,
      quantile_cont(followers, 0.99) AS p99, min(followers) AS mn, max(followers) AS mx FROM creators`);
    expect(q?.mn).toBeGreaterThanOrEqual(1000);
    expect(q?.mx).toBeLessThanOrEqual(200_000_000);
    expect(q?.p50).toBeGreaterThan(10_000);
    expect(q?.p50).toBeLessThan(40_000);
    expect((q?.p99 ?? 0) / (q?.p50 ?? 1)).toBeGreaterThan(30);
    expect((q?.p90 ?? 0) / (q?.p10 ?? 1)).toBeGreaterThan(10);
  });

  it('has engagement falling with size and differing by platform', async () => {
    const bands = await a.store.all<{ band: string; er: number }>(`SELECT CASE WHEN followers < 10000 THEN 'small'
        WHEN followers > 200000 THEN 'large' END AS band, median(engagement_rate) AS er
      FROM creators WHERE followers < 10000 OR followers > 200000 GROUP BY 1`);
    const er = Object.fromEntries(bands.map((r) => [r.band, r.er]));
    expect(er['small']).toBeGreaterThan(er['large'] ?? Infinity);
    const byPlatform = await a.store.all<{ platform: string; er: number }>(
      'SELECT platform, median(engagement_rate) AS er FROM creators GROUP BY 1',
    );
    const p = Object.fromEntries(byPlatform.map((r) => [r.platform, r.er]));
    expect(p['tiktok']).toBeGreaterThan(p['x'] ?? Infinity);
  });

  it('covers the taxonomy, ~40 countries skewed to the US, a minority verified', async () => {
    const s = await a.store.one<{ niches: number; countries: number; us: number; verified: number }>(`SELECT
      count(DISTINCT niche) AS niches, count(DISTINCT country) AS countries,
      avg((country = 'US')::INT) AS us, avg(verified::INT) AS verified FROM creators`);
    expect(s?.niches).toBe(NICHES.length);
    expect(s?.countries).toBeGreaterThanOrEqual(35);
    expect(s?.us).toBeGreaterThan(0.2);
    expect(s?.us).toBeLessThan(0.45);
    expect(s?.verified).toBeGreaterThan(0.01);
    expect(s?.verified).toBeLessThan(0.2);
  });

  it('keeps every audience dimension summing to at most 100 and gender, age, quality to ~100', async () => {
    const sums = await a.store.all<{
      dimension: string;
      lo: number;
      hi: number;
    }>(`SELECT dimension, min(t) AS lo, max(t) AS hi
      FROM (SELECT creator_id, dimension, sum(pct) AS t FROM audience GROUP BY ALL) GROUP BY dimension`);
    for (const s of sums) expect(s.hi).toBeLessThanOrEqual(100.5);
    for (const s of sums.filter((x) => ['gender', 'age', 'quality'].includes(x.dimension)))
      expect(s.lo).toBeGreaterThan(99.5);
    const own = await a.store.one<{ share: number }>(`SELECT avg((a.key = c.country)::INT) AS share FROM creators c
      JOIN (SELECT creator_id, arg_max(key, pct) AS key FROM audience WHERE dimension = 'country' GROUP BY 1) a USING (creator_id)`);
    expect(own?.share).toBeGreaterThan(0.8);
  });

  it('writes 365 days of history ending on the current count, and labels for the fraud patterns', async () => {
    const h = await a.store.one<{ days: number; mismatched: number }>(`SELECT
      (SELECT count(DISTINCT date) FROM follower_history) AS days,
      (SELECT count(*) FROM creators c JOIN follower_history h ON h.creator_id = c.creator_id AND h.date = '2026-11-21'
        WHERE h.followers <> c.followers) AS mismatched`);
    expect(h).toEqual({ days: 365, mismatched: 0 });
    const labels = await a.store.all<{ label: string; n: number }>(
      'SELECT label, count(*) AS n FROM creator_labels GROUP BY 1',
    );
    expect(labels.map((l) => l.label).sort()).toEqual([
      'authentic',
      'bought_followers',
      'engagement_pod',
      'mass_followers',
    ]);
    const patterns = await a.store.all<{ pattern: string }>('SELECT DISTINCT pattern FROM creator_labels ORDER BY 1');
    expect(patterns.map((p) => p.pattern)).toEqual([
      'audience_mismatch',
      'bought_spike',
      'engagement_pod',
      'follow_back',
      'mass_followers',
      'moderate_mass',
      'no_audience',
      'ordinary',
      'short_history',
      'slow_growth',
      'small_community',
      'small_spikes',
      'viral_jumps',
    ]);
    const missing = await a.store.one<{ no_audience: number; short: number }>(`SELECT
      count(*) FILTER (WHERE l.pattern = 'no_audience' AND NOT EXISTS (SELECT 1 FROM audience a WHERE a.creator_id = l.creator_id)) AS no_audience,
      count(*) FILTER (WHERE l.pattern = 'short_history' AND (SELECT count(*) FROM follower_history h WHERE h.creator_id = l.creator_id) < 45) AS short
      FROM creator_labels l`);
    expect(missing!.no_audience).toBeGreaterThan(30);
    expect(missing!.short).toBeGreaterThan(20);
  });

  it('purges bots on a few days per platform, which bought followers feel and ordinary creators barely do', async () => {
    const days = await a.store.all<{ platform: string; n: number; first: string }>(
      `SELECT platform, count(*) AS n, strftime(min(purge_date), '%Y-%m-%d') AS first FROM platform_purges GROUP BY 1`,
    );
    expect(days.length).toBeGreaterThanOrEqual(4);
    expect(days.every((d) => d.n >= 1 && d.n <= 4)).toBe(true);
    expect(new Set(days.map((d) => d.first)).size).toBeGreaterThan(1);
    const drops = await a.store.all<{ label: string; drop: number }>(
      `SELECT l.label, median(f.purge_drop_pct) AS drop
      FROM creator_labels l JOIN authenticity_features f USING (creator_id) WHERE l.pattern IN ('ordinary', 'slow_growth', 'bought_spike')
      GROUP BY 1`,
    );
    const by = new Map(drops.map((d) => [d.label, d.drop]));
    expect(by.get('bought_followers')!).toBeGreaterThan(1);
    expect(Math.abs(by.get('authentic')!)).toBeLessThan(0.3);
  });

  it('puts some handles on two platforms, campaigns with daily metrics for the demo account and a market history of other accounts', async () => {
    const dup = await a.store.one<{ n: number }>(
      'SELECT count(*) AS n FROM (SELECT handle FROM creators GROUP BY 1 HAVING count(*) > 1)',
    );
    expect(dup?.n).toBeGreaterThan(10);
    const c = await a.store.one<{
      campaigns: number;
      accounts: number;
      days: number;
    }>(
      `SELECT count(DISTINCT c.campaign_id) AS campaigns,
      count(DISTINCT c.account_id) AS accounts, count(DISTINCT m.date) AS days
      FROM campaigns c LEFT JOIN campaign_metrics m USING (campaign_id) WHERE c.account_id = ?`,
      [a.demoAccountId!],
    );
    expect(c?.campaigns).toBe(12);
    expect(c?.accounts).toBe(1);
    expect(c?.days).toBeGreaterThan(20);
    const market = await a.store.one<{ campaigns: number; accounts: number; paid: number; untyped: number }>(
      `SELECT count(DISTINCT c.campaign_id) AS campaigns, count(DISTINCT c.account_id) AS accounts,
        count(DISTINCT r.creator_id) AS paid, count(*) FILTER (WHERE r.post_type IS NULL OR r.posts IS NULL) AS untyped
      FROM campaigns c JOIN campaign_creators r USING (campaign_id) WHERE c.account_id <> ?`,
      [a.demoAccountId!],
    );
    expect(market?.campaigns).toBe(N / 20);
    expect(market?.accounts).toBeGreaterThan(30);
    expect(market?.paid).toBeGreaterThan(N / 3);
    expect(market?.untyped).toBe(0);
  });
});

describe('demo generator timestamps', () => {
  it('a seed made at 01:00 UTC stamps nothing after its start, though the data runs up to that day', async () => {
    const early = await createTestStore();
    try {
      const account = await ensureDemoAccount(early.state);
      const startedAt = new Date('2026-11-21T01:00:00.000Z');
      await seedDemoData(early.store, {
        creators: 300,
        seed: 3,
        asOf: '2026-11-21',
        startedAt,
        demoAccountId: account.account_id,
      });
      const latest = await early.store.one<Record<string, string>>(`SELECT
        strftime((SELECT max(updated_at) FROM creators), '%Y-%m-%d %H:%M:%S') AS creators_updated,
        strftime((SELECT max(profile_as_of) FROM creators), '%Y-%m-%d %H:%M:%S') AS profile_as_of,
        strftime((SELECT max(as_of) FROM audience), '%Y-%m-%d %H:%M:%S') AS audience_as_of,
        strftime((SELECT max(posted_at) FROM posts), '%Y-%m-%d %H:%M:%S') AS posted,
        strftime((SELECT max(updated_at) FROM campaigns), '%Y-%m-%d %H:%M:%S') AS campaigns_updated`);
      for (const value of Object.values(latest ?? {})) expect(value <= '2026-11-21 01:00:00').toBe(true);
      expect(latest?.['creators_updated']).toBe('2026-11-21 01:00:00');
    } finally {
      await early.cleanup();
    }
  });
});

describe('drawn worlds (the authenticity training)', () => {
  let w: TestStore;
  beforeAll(async () => {
    w = await createTestStore();
    const account = await ensureDemoAccount(w.store);
    await seedDemoData(w.store, {
      creators: 2000,
      seed: 11,
      asOf: TEST_AS_OF,
      demoAccountId: account.account_id,
      world: { oddityRate: 0.25, f4fRate: 0.06, historyDays: 120, spread: 2 },
    });
  });
  afterAll(async () => {
    await w.cleanup();
  });

  it('hold the legitimate oddities and follow-for-follow fraud, each as it is described', async () => {
    const rows = await w.store.all<{
      pattern: string;
      n: number;
      own_country: number | null;
      mass: number | null;
      ratio: number;
      churn: number | null;
      max_days: number;
      second_abroad: number | null;
      language: number | null;
    }>(`SELECT l.pattern, count(*) AS n, median(f.own_country_pct) AS own_country, median(f.mass_followers_pct) AS mass,
        median(f.following_ratio) AS ratio, median(f.following_churn_pct) AS churn, max(f.history_days) AS max_days,
        median(f.foreign_second_pct) AS second_abroad, median(f.own_language_pct - f.own_country_pct) AS language
      FROM creator_labels l JOIN authenticity_features f USING (creator_id) GROUP BY 1`);
    const by = new Map(rows.map((r) => [r.pattern, r]));
    for (const p of [
      'global_audience',
      'mass_audience',
      'steady_following',
      'multi_oddity',
      'diaspora_audience',
      'follow_for_follow',
    ])
      expect({ p, n: (by.get(p)?.n ?? 0) > 10 }).toEqual({ p, n: true });
    const ordinary = by.get('ordinary')!;
    expect(by.get('global_audience')!.own_country!).toBeLessThan(ordinary.own_country! / 2);
    expect(by.get('mass_audience')!.mass!).toBeGreaterThan(ordinary.mass! * 1.5);
    expect(by.get('steady_following')!.ratio).toBeGreaterThan(50);
    // a diaspora: a second large block abroad, as bought audiences bring, but speaking the creator's language
    const diaspora = by.get('diaspora_audience')!;
    expect(diaspora.second_abroad!).toBeGreaterThan(ordinary.second_abroad! * 1.5);
    expect(diaspora.language!).toBeGreaterThan(ordinary.language! + 5);
    // sprees undone in bulk: following churns; a steady habit does not
    expect(by.get('follow_for_follow')!.churn!).toBeGreaterThan(100);
    expect(by.get('steady_following')!.churn!).toBe(0);
    expect(Math.max(...rows.map((r) => r.max_days))).toBeLessThanOrEqual(120);
    const labels = await w.store.one<{ fraud: number }>(
      `SELECT count(*) FILTER (WHERE label = 'follow_for_follow') AS fraud FROM creator_labels`,
    );
    expect(labels!.fraud).toBe(by.get('follow_for_follow')!.n);
  });
});
