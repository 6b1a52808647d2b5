import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluatePricing } from '../../../data/derive/pricing-eval.js';
import {
  fitPriceModel,
  predictLog,
  priceInterval,
  residualsByCreator,
  type PriceModel,
  type PriceObservation,
} from '../../../data/derive/pricing-fit.js';
import { activePricingModel, readObservations, refitPrices } from '../../../data/derive/pricing.js';
import { HIDDEN_PRICE } from '../../../data/seed/demo-campaigns.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

let t: TestStore;
let obs: PriceObservation[];

beforeAll(async () => {
  t = await createTestStore({ creators: 3000 });
  obs = await readObservations(t.store);
});
afterAll(async () => {
  await t?.cleanup();
});

const gap = (levels: Record<string, number>, a: string, b: string): number => levels[a]! - levels[b]!;

describe('price model', () => {
  it("recovers the demo world's hidden price function: follower and engagement elasticities, country, post type and niche effects", () => {
    const m = fitPriceModel(obs);
    expect(obs.length).toBeGreaterThan(1000);
    expect(m.followers).toBeCloseTo(HIDDEN_PRICE.followers, 1);
    expect(Math.abs(m.engagement - HIDDEN_PRICE.engagement)).toBeLessThan(0.1);
    const hidden = HIDDEN_PRICE;
    const pairs: Array<[Record<string, number>, Record<string, number>, string, string]> = [
      [m.levels.country, hidden.country, 'US', 'IN'],
      [m.levels.country, hidden.country, 'GB', 'BR'],
      [m.levels.post_type, hidden.post_type, 'video', 'story'],
      [m.levels.post_type, hidden.post_type, 'reel', 'post'],
      [m.levels.platform, hidden.platform, 'youtube', 'x'],
      [m.levels.niche, hidden.niche, 'finance', 'art'],
    ];
    for (const [fitted, truth, a, b] of pairs) {
      expect(Math.abs(gap(fitted, a, b) - gap(truth, a, b)), `${a} − ${b}`).toBeLessThan(0.2);
    }
    // the spread splits into the creator's own level and campaign noise, near the hidden sds
    expect(Math.sqrt(m.spread.between)).toBeCloseTo(HIDDEN_PRICE.creator_sd, 1);
    expect(Math.sqrt(m.spread.within)).toBeCloseTo(HIDDEN_PRICE.noise_sd, 1);
  });

  it('held out by creator, at least 70 % of actual prices fall inside low–high, for campaign- and peer-based estimates', () => {
    const e = evaluatePricing(obs);
    expect(e.campaigns.n).toBeGreaterThan(100);
    expect(e.peers.n).toBeGreaterThan(100);
    expect(e.campaigns.coverage).toBeGreaterThanOrEqual(0.7);
    expect(e.peers.coverage).toBeGreaterThanOrEqual(0.7);
    // a creator's own prices make its estimate better than its peers' alone
    expect(e.campaigns.mdape!).toBeLessThan(e.peers.mdape!);
  });

  it('every creator gets an estimate per post type: those without campaign prices peer-based with low confidence', async () => {
    const rows = await t.store.all<{ basis: string; confidence: string; own: boolean; creators: number; bad: number }>(
      `SELECT e.basis, e.confidence, e.creator_id IN (SELECT creator_id FROM campaign_creators) AS own,
        count(DISTINCT e.creator_id)::INTEGER AS creators,
        count(*) FILTER (WHERE NOT (e.low <= e.mid AND e.mid <= e.high))::INTEGER AS bad
      FROM price_estimates e GROUP BY ALL ORDER BY ALL`,
    );
    const peers = rows.filter((r) => r.basis === 'peers');
    expect(peers.every((r) => r.confidence === 'low')).toBe(true);
    expect(rows.filter((r) => r.basis === 'campaigns').every((r) => r.own && r.confidence !== 'low')).toBe(true);
    expect(rows.every((r) => r.bad === 0)).toBe(true);
    const total = await t.store.one<{ creators: number; rows: number; priced: number }>(
      `SELECT (SELECT count(*) FROM creators)::INTEGER AS creators, (SELECT count(*) FROM price_estimates)::INTEGER AS rows,
        (SELECT count(price_post_usd) FROM creators)::INTEGER AS priced`,
    );
    expect(total).toEqual({ creators: 3000, rows: 3000 * 6, priced: 3000 });
  });

  it('the estimates written in SQL are the model’s: a creator’s stored mid and range match the same arithmetic in JavaScript', async () => {
    const active = await activePricingModel(t.store);
    const m = active!.model as PriceModel;
    const residuals = residualsByCreator(m, obs);
    const sample = obs.filter((_, i) => i % 97 === 0).slice(0, 20);
    for (const o of sample) {
      const r = residuals.get(o.creator_id)!;
      const iv = priceInterval(m.spread, r.length, r.reduce((s, x) => s + x, 0) / r.length);
      const mid = predictLog(m, o) + iv.shift;
      const stored = await t.store.one<{ low: number; mid: number; high: number; observations: number }>(
        'SELECT low, mid, high, observations FROM price_estimates WHERE creator_id = ? AND post_type = ?',
        [o.creator_id, o.post_type],
      );
      expect(stored?.observations).toBe(r.length);
      expect(stored?.mid).toBeCloseTo(Math.exp(mid), 1);
      expect(stored?.low).toBeCloseTo(Math.exp(mid + iv.low), 1);
      expect(stored?.high).toBeCloseTo(Math.exp(mid + iv.high), 1);
    }
  });

  it('each refit is a new model version with its held-out figures', async () => {
    const before = await activePricingModel(t.store);
    const fit = await t.store.transaction((tx) => refitPrices(tx));
    const after = await activePricingModel(t.store);
    expect(fit?.version).toBe(after?.version);
    expect(after?.version).not.toBe(before?.version);
    const row = await t.store.one<{ metrics: string }>(
      'SELECT metrics::VARCHAR AS metrics FROM pricing_models WHERE version = ?',
      [after!.version],
    );
    expect(JSON.parse(row!.metrics)).toMatchObject({
      campaigns: { n: expect.any(Number) },
      peers: { n: expect.any(Number) },
    });
  });
});
