import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { evaluate } from '../../../data/authenticity/evaluation.js';
import { recomputeAuthenticity } from '../../../data/authenticity/precompute.js';
import { selectDemoLabelled } from '../../../data/authenticity/evaluation.queries.js';
import { ensureDemoAccount } from '../../../data/seed/demo-account.js';
import { seedDemoData } from '../../../data/seed/demo-generator.js';
import { TEST_AS_OF, createTestStore, type TestStore } from '../../helpers/store.js';

let t: TestStore;

beforeAll(async () => {
  // a seed and spike sizes the model was not tuned on (the demo default is seed 42, spikes ×1)
  t = await createTestStore();
  const account = await ensureDemoAccount(t.store);
  await seedDemoData(t.store, {
    creators: 3000,
    seed: 2027,
    spikeScale: 0.6,
    asOf: TEST_AS_OF,
    demoAccountId: account.account_id,
  });
});
afterAll(async () => {
  await t.cleanup();
});

describe('authenticity precompute at load', () => {
  it('scores every creator, with a verdict that follows the thresholds and a check time', async () => {
    const row = await t.store.one<{
      n: number;
      scored: number;
      bad_verdict: number;
      out_of_range: number;
      unchecked: number;
    }>(`SELECT
        count(*) AS n, count(authenticity_score) AS scored,
        count(*) FILTER (WHERE authenticity_verdict IS DISTINCT FROM CASE WHEN authenticity_score >= 80 THEN 'authentic'
          WHEN authenticity_score >= 60 THEN 'questionable' ELSE 'suspicious' END) AS bad_verdict,
        count(*) FILTER (WHERE authenticity_score NOT BETWEEN 0 AND 100 OR fake_followers_pct NOT BETWEEN 0 AND 100) AS out_of_range,
        count(*) FILTER (WHERE authenticity_checked_at IS NULL) AS unchecked
      FROM creators`);
    expect(row).toEqual({ n: 3000, scored: 3000, bad_verdict: 0, out_of_range: 0, unchecked: 0 });
  });

  it('keeps peer statistics per platform and follower band with enough members', async () => {
    const stats = await t.store.all<{ metric: string; n: number; mad: number }>(
      "SELECT metric, n, mad FROM authenticity_peer_stats WHERE metric = 'engagement_rate'",
    );
    expect(stats.length).toBeGreaterThan(5);
    for (const s of stats) expect(s.n).toBeGreaterThanOrEqual(30);
  });

  it('separates the labelled creators of another seed with ROC AUC ≥ 0.95, flagging few legitimate ones', async () => {
    const report = evaluate(await selectDemoLabelled(t.store));
    expect(report.frauds).toBeGreaterThan(200);
    expect(report.auc).toBeGreaterThanOrEqual(0.95);
    expect(report.thresholds[0]!.recall).toBeGreaterThan(0.85);
    expect(report.thresholds[1]!.precision).toBeGreaterThan(0.85);
    const legit = report.patterns.filter((p) => !p.fraud);
    expect(legit.map((p) => p.pattern).sort()).toEqual([
      'follow_back',
      'no_audience',
      'ordinary',
      'short_history',
      'small_community',
      'viral_jumps',
    ]);
    for (const p of legit)
      expect({ pattern: p.pattern, flagged: p.flagged_below_60 < 0.05 }).toEqual({ pattern: p.pattern, flagged: true });
  });
});

describe('peer statistics refresh', () => {
  async function rescore(creatorIds: number[]): Promise<void> {
    await t.store.transaction(async (tx) => {
      await tx.run('CREATE OR REPLACE TEMP TABLE touched_peer_test AS SELECT unnest(?::INTEGER[]) AS creator_id', [
        creatorIds,
      ]);
      await recomputeAuthenticity(tx, { table: 'touched_peer_test' });
      await tx.run('DROP TABLE touched_peer_test');
    });
  }
  const computedAt = async (): Promise<number> =>
    (await t.store.one<{ at: Date }>('SELECT min(computed_at) AS at FROM authenticity_peer_stats'))!.at.getTime();

  it('a small load is scored against the current statistics; a large one, or stale ones, rebuild them', async () => {
    const before = await computedAt();
    await rescore([1, 2, 3]);
    expect(await computedAt()).toBe(before);
    await rescore(Array.from({ length: 200 }, (_, i) => i + 1));
    const afterLarge = await computedAt();
    expect(afterLarge).toBeGreaterThan(before);
    await t.store.run('UPDATE authenticity_peer_stats SET computed_at = computed_at - INTERVAL 11 MINUTE');
    await rescore([4]);
    expect(await computedAt()).toBeGreaterThan(afterLarge - 11 * 60_000);
  });
});
