import { describe, expect, it } from 'vitest';
import { labelsSha256, labelsToCsv, parseLabelsCsv } from '../../data/authenticity/labels.js';
import { fitMonotoneLogistic, fitPlatt, logits } from '../../data/authenticity/model-fit.js';
import { FEATURE_SPEC_VERSION, TERMS, hinge, modelVersion } from '../../data/authenticity/model-spec.js';
import { prng } from '../../core/prng.js';

/** Rows from a known model: x1 raises the odds (w 2), x2 lowers them (w −1.5), x3 is noise. */
function synthetic(n: number, seed: number): { columns: Float64Array[]; y: Uint8Array } {
  const r = prng(seed);
  const columns = [new Float64Array(n), new Float64Array(n), new Float64Array(n)];
  const y = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const [a, b, c] = [r(), r(), r()];
    columns[0]![i] = a;
    columns[1]![i] = b;
    columns[2]![i] = c;
    y[i] = r() < 1 / (1 + Math.exp(-(-1 + 2 * a - 1.5 * b))) ? 1 : 0;
  }
  return { columns, y };
}

describe('monotone logistic regression', () => {
  it('recovers a positive effect, keeps a negative one at 0, and gives the same fit for the same data', () => {
    const d = synthetic(20_000, 3);
    const fit = fitMonotoneLogistic(d, { lambda: 1e-5, sweeps: 100 });
    expect(fit.weights[0]).toBeGreaterThan(1.5);
    expect(fit.weights[0]).toBeLessThan(2.5);
    expect(fit.weights[1]).toBe(0);
    expect(fit.weights[2]).toBeLessThan(0.2);
    expect(fitMonotoneLogistic(d, { lambda: 1e-5, sweeps: 100 })).toEqual(fit);
  });

  it('stronger regularisation shrinks the weights', () => {
    const d = synthetic(5_000, 4);
    const weak = fitMonotoneLogistic(d, { lambda: 1e-5, sweeps: 60 });
    const strong = fitMonotoneLogistic(d, { lambda: 0.05, sweeps: 60 });
    expect(strong.weights[0]).toBeLessThan(weak.weights[0]!);
  });
});

describe('a prior model to adjust', () => {
  it('few labels stay near the prior, many labels move away from it towards what they show', () => {
    // the prior says x2 raises the odds and x1 does not; the data say the opposite
    const prior = { weights: [0, 2, 0], strength: 100 };
    const few = fitMonotoneLogistic(synthetic(200, 5), { lambda: 1e-5, sweeps: 100, prior });
    const many = fitMonotoneLogistic(synthetic(50_000, 6), { lambda: 1e-5, sweeps: 100, prior });
    expect(few.weights[1]).toBeGreaterThan(1);
    expect(few.weights[0]).toBeLessThan(1);
    expect(many.weights[0]).toBeGreaterThan(1.5);
    expect(many.weights[1]).toBeLessThan(0.5);
  });

  it("Platt scaling with a prior starts from the prior's calibration and keeps it for a handful of labels", () => {
    const scores = [-3, -2, 1, 2];
    const y = [0, 0, 1, 1];
    const free = fitPlatt(scores, y);
    const pulled = fitPlatt(scores, y, { platt: { a: 0.5, b: -1 }, strength: 100 });
    expect(Math.abs(pulled.a - 0.5)).toBeLessThan(Math.abs(free.a - 0.5));
    expect(Math.abs(pulled.b + 1)).toBeLessThan(0.2);
  });
});

describe('Platt calibration', () => {
  it('maps over-confident scores back onto the observed rates', () => {
    const r = prng(5);
    const s = Float64Array.from({ length: 20_000 }, () => (r() - 0.5) * 12);
    // the truth is σ(s / 3 − 1): the raw score is three times too confident and shifted
    const y = Uint8Array.from(s, (v) => (r() < 1 / (1 + Math.exp(-(v / 3 - 1))) ? 1 : 0));
    const { a, b } = fitPlatt(s, y);
    expect(a).toBeCloseTo(1 / 3, 1);
    expect(b).toBeCloseTo(-1, 0);
    const fit = { intercept: 0, weights: [1] };
    expect(logits({ columns: [Float64Array.of(2)] }, fit, 1)[0]).toBe(2);
  });
});

describe('model terms and labels', () => {
  it('a hinge is 0 up to its first knot, capped at 1, and 0 for a missing value', () => {
    expect(hinge(null, [1, 3, 6], 1)).toBe(0);
    expect(hinge(0.5, [1, 3, 6], 1)).toBe(0);
    expect(hinge(2, [1, 3, 6], 1)).toBe(0.5);
    expect(hinge(50, [1, 3, 6], 2)).toBe(1);
    expect(new Set(TERMS.map((t) => t.name)).size).toBe(TERMS.length);
  });

  it('a source has one hinge per pair of neighbouring knots: "any unexplained jump" is one term, full at the first jump', () => {
    const any = TERMS.filter((t) => t.code === 'follower_jumps' && t.side === 'any');
    expect(any.map((t) => t.name)).toEqual(['follower_jumps:any:1']);
    expect([0, 1, 3].map((n) => hinge(n, [0, 1], 1))).toEqual([0, 1, 1]);
    expect(hinge(1.5, [0, 1], 2)).toBe(0);
    expect(TERMS.filter((t) => t.code === 'audience_suspicious').map((t) => t.name)).toEqual([
      'audience_suspicious:high:1',
      'audience_suspicious:high:2',
    ]);
  });

  it('model versions carry the feature specification they weigh', () => {
    expect(FEATURE_SPEC_VERSION).toBe('auth-features-8');
    expect([modelVersion(0), modelVersion(3)]).toEqual(['auth-8.0', 'auth-8.3']);
  });

  it('labels CSV round-trips, accepts the old word labels, and hashes the same set the same in any order', () => {
    const rows = parseLabelsCsv(
      'platform,handle,label,pattern\nX,@Ann,1,small_spikes\ntiktok,bob,0,\ninstagram,@cy,authentic,\nx,@dee,bought_followers,\n',
    );
    expect(rows).toEqual([
      { platform: 'x', handle: '@ann', label: 1, pattern: 'small_spikes' },
      { platform: 'tiktok', handle: '@bob', label: 0, pattern: null },
      { platform: 'instagram', handle: '@cy', label: 0, pattern: 'authentic' },
      { platform: 'x', handle: '@dee', label: 1, pattern: 'bought_followers' },
    ]);
    expect(parseLabelsCsv(labelsToCsv(rows))).toEqual(rows);
    expect(labelsSha256([...rows].reverse())).toBe(labelsSha256(rows));
    expect(() => parseLabelsCsv('platform,handle,label\nx,,1\n')).toThrow(/line 2/);
  });
});
