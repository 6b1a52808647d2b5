import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recomputeCreatorMetrics } from '../../../data/derive/creator-metrics.js';
import { toAssessment, type Assessment } from '../../../data/authenticity/explain.js';
import { scoreCreator } from '../../../data/authenticity/verification.queries.js';
import { EVIDENCE } from '../../../data/authenticity/model.js';
import { baselineProbability } from '../../../data/authenticity/scoring.queries.js';
import { builtInModel } from '../../../data/authenticity/trained-model.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';
import { insertHandMade, peers, type HandMade } from './hand-made.js';

/** Creators that should trip exactly one signal each, among ordinary peers. */
const SUBJECTS: Record<string, HandMade> = {
  normal: { id: 1, handle: '@normal' },
  bought: { id: 2, handle: '@bought', spike: { daysAgo: 200, share: 0.25, viral: false } },
  viral: { id: 3, handle: '@viral', spike: { daysAgo: 30, share: 0.2, viral: true } },
  lowEngagement: { id: 4, handle: '@lowengagement', er: 0.4 },
  highEngagement: { id: 5, handle: '@highengagement', er: 20 },
  pod: { id: 6, handle: '@pod', likesPerComment: 4 },
  following: { id: 7, handle: '@following', following: 12_000 },
  followingGrowth: { id: 8, handle: '@followinggrowth', followingGrowthPct: 120 },
  fakeAudience: { id: 9, handle: '@fakeaudience', quality: { suspicious: 35, mass: 20, influencers: 4 } },
  influencers: { id: 10, handle: '@influencers', quality: { suspicious: 8, mass: 8, influencers: 25 } },
  geography: { id: 11, handle: '@geography', ownCountryPct: 8 },
  language: { id: 12, handle: '@language', ownLanguagePct: 8 },
  thin: { id: 13, handle: '@thin', historyDays: 20, posts: 3 },
  smallJumps: { id: 14, handle: '@smalljumps', jumps: { count: 4, share: 0.008 } },
  noisyJumps: { id: 15, handle: '@noisyjumps', jumps: { count: 4, share: 0.008 }, jitter: 0.03 },
  churn: { id: 16, handle: '@churn', following: 12_000, followingGrowthPct: 120 },
  massAudience: { id: 17, handle: '@massaudience', quality: { suspicious: 4, mass: 24, influencers: 4 } },
  shortJumps: { id: 18, handle: '@shortjumps', historyDays: 10, posts: 3 },
  suspiciousAudience: { id: 19, handle: '@suspiciousaudience', quality: { suspicious: 24, mass: 8, influencers: 4 } },
  oneJump: { id: 20, handle: '@onejump', jumps: { count: 1, share: 0.008 } },
  glitch: { id: 21, handle: '@glitch', glitchAgo: 100 },
  followForFollow: {
    id: 22,
    handle: '@followforfollow',
    following: 12_000,
    followingSawtooth: { amplitude: 0.3, period: 20 },
  },
  fewViews: { id: 23, handle: '@fewviews', viewsPerFollower: 0.04 },
  /** Legitimate-looking oddities together and no direct evidence: a global audience, a raised mass share, a high ratio. */
  oddities: {
    id: 24,
    handle: '@oddities',
    following: 14_000,
    followingGrowthPct: 0,
    ownCountryPct: 6,
    ownLanguagePct: 12,
    quality: { suspicious: 20, mass: 24, influencers: 4 },
  },
  /** The same oddities with unexplained jumps: direct evidence. */
  odditiesAndJumps: {
    id: 25,
    handle: '@odditiesandjumps',
    following: 14_000,
    followingGrowthPct: 0,
    ownCountryPct: 6,
    ownLanguagePct: 12,
    quality: { suspicious: 20, mass: 24, influencers: 4 },
    jumps: { count: 4, share: 0.008 },
  },
  /** A bought audience from abroad: a block in two foreign countries beside the usual US share. */
  foreignBlock: { id: 26, handle: '@foreignblock', ownCountryPct: 35, foreignBlock: 25 },
  /** A legitimate global audience: many countries abroad, none of them large. */
  globalSpread: { id: 27, handle: '@globalspread', ownCountryPct: 20, neighbourPct: 6, spreadCountries: 8 },
  /** The only creator from its country: no peers to judge its audience's countries and language against. */
  elsewhere: { id: 28, handle: '@elsewhere', country: 'FR', language: 'fr' },
  /** Bought followers the platform purged: 3 % of them gone on each purge day, which the peers barely felt. */
  purged: { id: 29, handle: '@purged', purgeLoss: 0.03 },
  /** A keen community: three times the engagement, and three times the views to go with it. */
  keenCommunity: { id: 30, handle: '@keencommunity', er: 9, viewsPerFollower: 0.75 },
};

let t: TestStore;
const results: Record<string, Assessment> = {};

beforeAll(async () => {
  t = await createTestStore();
  await t.store.transaction(async (tx) => {
    await insertHandMade(tx, [...Object.values(SUBJECTS), ...peers(100, 80)]);
    await recomputeCreatorMetrics(tx, 'all');
  });
  for (const [name, c] of Object.entries(SUBJECTS)) {
    const row = await scoreCreator(t.store, c.id, builtInModel());
    if (!row) throw new Error(`no score for ${name}`);
    results[name] = toAssessment(row, builtInModel());
  }
});
afterAll(async () => {
  await t.cleanup();
});

function status(name: string, code: string): string | undefined {
  return results[name]?.signals.find((s) => s.code === code)?.status;
}

describe('authenticity signals on hand-made creators', () => {
  it('an ordinary creator passes every signal and is authentic with high confidence', () => {
    const r = results['normal']!;
    expect(r.signals.filter((s) => s.status !== 'pass').map((s) => s.code)).toEqual([]);
    expect(r.verdict).toBe('authentic');
    expect(r.authenticity_score).toBe(Math.round(1000 * (1 - baselineProbability(builtInModel()))) / 10);
    expect(r.signals.every((s) => s.contribution === 0 && s.penalty === 0 && s.available)).toBe(true);
    expect(r.confidence).toBe('high');
    expect(r.model_version).toBe(builtInModel().version);
  });

  it('a one-day follower jump with no post behind it fails follower_spikes and names the date', () => {
    const spikes = results['bought']!.signals.find((s) => s.code === 'follower_spikes')!;
    expect(spikes.status).toBe('fail');
    expect(spikes.value).toBe(1);
    expect(spikes.dates).toEqual([{ date: '2026-05-06', gain_pct: expect.any(Number), explained: false }]);
    expect(spikes.detail).toContain('2026-05-06');
    expect(results['bought']!.authenticity_score).toBeLessThan(80);
  });

  it('a jump that follows a viral post is listed as explained and passes', () => {
    const spikes = results['viral']!.signals.find((s) => s.code === 'follower_spikes')!;
    expect(spikes.status).toBe('pass');
    expect(spikes.dates?.[0]?.explained).toBe(true);
    expect(results['viral']!.verdict).toBe('authentic');
  });

  it.each([
    ['lowEngagement', 'engagement_rate'],
    ['highEngagement', 'engagement_rate'],
    ['pod', 'likes_comments_ratio'],
    ['following', 'following_ratio'],
    ['followingGrowth', 'following_growth'],
    ['fakeAudience', 'audience_quality'],
    ['influencers', 'audience_influencers'],
    ['geography', 'audience_geography'],
    ['language', 'audience_language'],
    ['massAudience', 'audience_mass_followers'],
    ['suspiciousAudience', 'audience_suspicious'],
    ['smallJumps', 'follower_jumps'],
    ['foreignBlock', 'audience_foreign_block'],
    ['purged', 'purge_drop'],
    ['pod', 'comments_per_view'],
  ])('%s fails %s, which the ordinary creator passes, and never scores better for it', (name, code) => {
    expect(status(name, code)).toBe('fail');
    expect(status('normal', code)).toBe('pass');
    // the model is monotone: an unusual value adds its learnt weight (0 for following_ratio: follow-back is not fraud by itself)
    expect(results[name]!.fraud_probability).toBeGreaterThanOrEqual(results['normal']!.fraud_probability);
    const signal = results[name]!.signals.find((s) => s.code === code)!;
    expect(signal.contribution).toBeGreaterThanOrEqual(0);
  });

  it('several small unexplained jumps, each under the spike threshold, fail follower_jumps with their dates', () => {
    const r = results['smallJumps']!;
    const jumps = r.signals.find((s) => s.code === 'follower_jumps')!;
    expect(r.signals.find((s) => s.code === 'follower_spikes')!.value).toBe(0);
    expect(jumps).toMatchObject({ value: 4, status: 'fail', available: true });
    expect(jumps.dates?.map((d) => d.date).sort()).toEqual(['2026-03-27', '2026-05-26', '2026-07-25', '2026-09-23']);
    expect(jumps.contribution).toBeGreaterThan(0);
    expect(r.fraud_probability).toBeGreaterThan(results['normal']!.fraud_probability);
  });

  it('one unexplained jump already adds to the fraud logit, and several add more', () => {
    const one = results['oneJump']!.signals.find((s) => s.code === 'follower_jumps')!;
    const several = results['smallJumps']!.signals.find((s) => s.code === 'follower_jumps')!;
    expect(one).toMatchObject({ value: 1, available: true });
    expect(one.contribution).toBeGreaterThan(0);
    expect(several.contribution).toBeGreaterThan(one.contribution);
    expect(results['oneJump']!.fraud_probability).toBeGreaterThan(results['normal']!.fraud_probability);
  });

  it('a day whose count was read 20 % too high and is right again the next day is a glitch: neither a spike nor a jump', () => {
    const r = results['glitch']!;
    expect(r.signals.find((s) => s.code === 'follower_spikes')).toMatchObject({ value: 0, contribution: 0 });
    expect(r.signals.find((s) => s.code === 'follower_jumps')).toMatchObject({ value: 0, contribution: 0 });
    expect(r.verdict).toBe('authentic');
  });

  it('the same jumps inside a history whose every day moves as much are noise, not jumps', () => {
    const jumps = results['noisyJumps']!.signals.find((s) => s.code === 'follower_jumps')!;
    expect(jumps.value).toBeLessThanOrEqual(1);
    expect(jumps.contribution).toBe(0);
  });

  it('under two weeks of history, residual jumps are not evaluated and weigh nothing', () => {
    const jumps = results['shortJumps']!.signals.find((s) => s.code === 'follower_jumps')!;
    expect(jumps).toMatchObject({ value: null, available: false, contribution: 0 });
  });

  it('a high following ratio with mutual growth (follow-back) is not weighed; with following outgrowing followers it is', () => {
    const followBack = results['following']!.signals.find((s) => s.code === 'following_ratio')!;
    const churn = results['churn']!.signals.find((s) => s.code === 'following_ratio')!;
    expect(followBack.status).toBe('fail');
    expect(followBack.contribution).toBe(0);
    expect(followBack.detail).toMatch(/Not weighed: the accounts followed grew in step/);
    expect(churn.contribution).toBeGreaterThan(0);
    expect(results['churn']!.fraud_probability).toBeGreaterThan(results['following']!.fraud_probability);
  });

  it('the explanation adds up: contributions are the calibrated logit above the baseline, before the evidence rule', () => {
    const model = builtInModel();
    const base = model.calibration.a * model.coefficients.intercept + model.calibration.b;
    for (const [name, r] of Object.entries(results)) {
      const raw = 1 / (1 + Math.exp(-(base + r.signals.reduce((s, x) => s + x.contribution, 0))));
      if (r.confidence_reason.startsWith('Held')) {
        expect({ name, above: raw > EVIDENCE.cap - EVIDENCE.band - 0.01 }).toEqual({ name, above: true });
        expect({ name, p: r.fraud_probability < EVIDENCE.cap }).toEqual({ name, p: true });
      } else expect({ name, p: raw }).toEqual({ name, p: expect.closeTo(r.fraud_probability, 2) });
    }
    expect(results['fakeAudience']!.signals.find((s) => s.code === 'audience_quality')!.contribution).toBeGreaterThan(
      0,
    );
  });

  it('follow/unfollow sprees fail following_churn; following that only grows passes it', () => {
    const churn = results['followForFollow']!.signals.find((s) => s.code === 'following_churn')!;
    expect(churn.status).toBe('fail');
    expect(churn.contribution).toBeGreaterThan(0);
    expect(status('churn', 'following_churn')).toBe('pass');
    expect(status('normal', 'following_churn')).toBe('pass');
  });

  it('a block of the audience in two more foreign countries fails audience_foreign_block and adds to the logit; a global audience spread over many countries passes it', () => {
    const block = results['foreignBlock']!.signals.find((s) => s.code === 'audience_foreign_block')!;
    expect(block).toMatchObject({ status: 'fail', available: true, value: 15 });
    expect(block.contribution).toBeGreaterThan(0);
    const spread = results['globalSpread']!.signals.find((s) => s.code === 'audience_foreign_block')!;
    expect(spread).toMatchObject({ status: 'pass', available: true, value: 6, contribution: 0 });
    // the global audience fails geography, which the model does not weigh: oddity, not evidence
    expect(status('globalSpread', 'audience_geography')).toBe('fail');
    expect(results['foreignBlock']!.fraud_probability).toBeGreaterThan(results['globalSpread']!.fraud_probability);
  });

  it('without peers from its country, the country signals are not evaluated, weigh nothing, and count as two signals not evaluated for confidence, not three', () => {
    const r = results['elsewhere']!;
    const missing = r.signals.filter((s) => !s.available).map((s) => s.code);
    expect(missing.sort()).toEqual(['audience_foreign_block', 'audience_geography', 'audience_language']);
    expect(r.signals.filter((s) => !s.available).every((s) => s.contribution === 0)).toBe(true);
    expect(r.confidence).toBe('high');
  });

  it('followers lost on the days the platform purged bots fail purge_drop, which is evidence: the verdict is not held', () => {
    const r = results['purged']!;
    const drop = r.signals.find((s) => s.code === 'purge_drop')!;
    expect(drop).toMatchObject({ status: 'fail', available: true });
    expect(drop.value).toBeCloseTo(3, 0);
    expect(drop.contribution).toBeGreaterThan(0);
    expect(r.confidence_reason).not.toMatch(/^Held/);
    expect(r.fraud_probability).toBeGreaterThan(results['normal']!.fraud_probability);
  });

  it('comments out of proportion to views fail comments_per_view, which is evidence; engagement that came with its views passes it', () => {
    const pod = results['pod']!;
    const cpv = pod.signals.find((s) => s.code === 'comments_per_view')!;
    expect(cpv).toMatchObject({ status: 'fail', available: true });
    expect(cpv.contribution).toBeGreaterThan(0);
    expect(pod.confidence_reason).not.toMatch(/^Held/);
    const keen = results['keenCommunity']!;
    expect(keen.signals.find((s) => s.code === 'comments_per_view')).toMatchObject({ status: 'pass', contribution: 0 });
    expect(keen.signals.find((s) => s.code === 'likes_per_view')).toMatchObject({ status: 'pass', contribution: 0 });
    expect(keen.verdict).toBe('authentic');
  });

  it('likes out of proportion to views fail likes_per_view', () => {
    expect(status('fewViews', 'likes_per_view')).toBe('fail');
    expect(results['fewViews']!.signals.find((s) => s.code === 'likes_per_view')!.contribution).toBeGreaterThan(0);
  });

  it('oddities without direct evidence are held at questionable with low confidence and the reason; evidence is not held', () => {
    const held = results['oddities']!;
    expect(held.verdict).toBe('questionable');
    expect(held.confidence).toBe('low');
    expect(held.confidence_reason).toMatch(/^Held at questionable: .*audience_(mass_followers|quality|language)/);
    expect(held.fraud_probability).toBeLessThan(EVIDENCE.cap);
    const evidenced = results['odditiesAndJumps']!;
    expect(evidenced.verdict).toBe('suspicious');
    expect(evidenced.confidence_reason).not.toMatch(/^Held/);
    expect(evidenced.fraud_probability).toBeGreaterThan(held.fraud_probability);
  });

  it('under 30 days of history and few posts give low confidence', () => {
    expect(results['thin']!.confidence).toBe('low');
    expect(results['thin']!.signals.find((s) => s.code === 'follower_growth')!.available).toBe(false);
    expect(results['thin']!.data_used).toEqual({ history_days: 20, posts: 3 });
  });

  it('the precomputed score on creators matches the one-creator check', async () => {
    const rows = await t.store.all<{ creator_id: number; authenticity_score: number; authenticity_verdict: string }>(
      'SELECT creator_id, authenticity_score, authenticity_verdict FROM creators WHERE creator_id < 100 ORDER BY creator_id',
    );
    for (const [name, c] of Object.entries(SUBJECTS)) {
      const row = rows.find((r) => r.creator_id === c.id);
      expect({ name, score: row?.authenticity_score, verdict: row?.authenticity_verdict }).toEqual({
        name,
        score: results[name]!.authenticity_score,
        verdict: results[name]!.verdict,
      });
    }
  });

  it('when a load touches a creator, only its precomputed score is refreshed', async () => {
    await t.store.transaction(async (tx) => {
      await tx.run(`UPDATE audience SET pct = CASE key WHEN 'suspicious' THEN 40 WHEN 'mass_followers' THEN 25 WHEN 'real' THEN 31 ELSE pct END
        WHERE creator_id = 1 AND dimension = 'quality'`);
      await tx.run('CREATE TEMP TABLE touched AS SELECT 1 AS creator_id');
      await recomputeCreatorMetrics(tx, { table: 'touched' });
      await tx.run('DROP TABLE touched');
    });
    const after = await t.store.all<{ creator_id: number; authenticity_score: number }>(
      'SELECT creator_id, authenticity_score FROM creators WHERE creator_id IN (1, 2) ORDER BY creator_id',
    );
    expect(after[0]!.authenticity_score).toBeLessThan(80);
    expect(after[1]!.authenticity_score).toBe(results['bought']!.authenticity_score);
  });
});
