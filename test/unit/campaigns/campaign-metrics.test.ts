import { describe, expect, it } from 'vitest';
import { deriveMetrics, zeroSums, type MetricSums } from '../../../data/campaigns/campaign-metrics.js';

function sums(over: Partial<MetricSums>): MetricSums {
  return { ...zeroSums(), ...over };
}

describe('deriveMetrics', () => {
  it('when sums are given, ratios come from the sums on the percent scale', () => {
    const m = deriveMetrics(
      sums({
        impressions: 20_000,
        likes: 500,
        comments: 40,
        shares: 30,
        saves: 30,
        clicks: 160,
        spend: 190,
        revenue: 570,
      }),
    );
    expect(m.engagements).toBe(600);
    expect(m.engagement_rate).toBe(3);
    expect(m.ctr).toBe(0.8);
    expect(m.cpm).toBe(9.5);
    expect(m.cpc).toBeCloseTo(1.1875, 6);
    expect(m.cpe).toBeCloseTo(0.3167, 6);
    expect(m.roas).toBe(3);
  });

  it('when two days with different rates are combined, the rate is the pooled one, not the average of the days', () => {
    const busy = { impressions: 9_000, likes: 90 };
    const quiet = { impressions: 1_000, likes: 100 };
    const m = deriveMetrics(
      sums({ impressions: busy.impressions + quiet.impressions, likes: busy.likes + quiet.likes }),
    );
    expect(m.engagement_rate).toBe(1.9);
    expect(m.engagement_rate).not.toBe((1 + 10) / 2);
  });

  it('when every denominator is zero, every ratio is null and nothing is NaN', () => {
    const m = deriveMetrics(zeroSums());
    expect([m.engagement_rate, m.ctr, m.cpm, m.cpc, m.cpe, m.roas]).toEqual([null, null, null, null, null, null]);
    expect(JSON.stringify(m)).not.toMatch(/NaN|Infinity/);
  });

  it('when only spend is zero, roas is null while the impression ratios still compute', () => {
    const m = deriveMetrics(sums({ impressions: 1000, clicks: 10, revenue: 50 }));
    expect(m.roas).toBeNull();
    expect(m.cpm).toBe(0);
    expect(m.ctr).toBe(1);
  });

  it('when money sums carry float noise, they are rounded to cents', () => {
    expect(deriveMetrics(sums({ spend: 0.1 + 0.2, revenue: 1.005 + 0.000001 })).spend).toBe(0.3);
  });
});
