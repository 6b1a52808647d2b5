import { describe, expect, it } from 'vitest';
import { evaluate, rocAuc, type ScoredLabel } from '../../../data/authenticity/evaluation.js';

const item = (score: number, label = 'authentic'): ScoredLabel => ({ score, label, fraud: label !== 'authentic' });

describe('evaluation figures', () => {
  it('AUC is 1 when every fraud scores below every authentic creator, 0 when reversed', () => {
    expect(rocAuc([item(10, 'bought_followers'), item(20, 'engagement_pod'), item(90), item(95)])).toBe(1);
    expect(rocAuc([item(99, 'bought_followers'), item(10)])).toBe(0);
  });

  it('tied scores count half, so a constant model has AUC 0.5', () => {
    expect(rocAuc([item(50, 'bought_followers'), item(50), item(50), item(50, 'mass_followers')])).toBe(0.5);
  });

  it('AUC matches the pairwise definition on a mixed case', () => {
    const xs = [item(30, 'x'), item(70, 'x'), item(50), item(80), item(70)];
    // fraud pairs (f, a) with f < a count 1, ties 0.5: 30 beats 50, 80, 70 (3); 70 beats 80 (1), ties 70 (0.5) → 4.5 / 6
    expect(rocAuc(xs)).toBeCloseTo(4.5 / 6, 10);
  });

  it('AUC is undefined without both classes', () => {
    expect(rocAuc([item(10), item(20)])).toBeNull();
  });

  it('precision, recall and the confusion matrix follow the verdict thresholds', () => {
    const report = evaluate([
      item(95),
      item(85),
      item(70),
      item(40, 'bought_followers'),
      item(65, 'engagement_pod'),
      item(90, 'mass_followers'),
    ]);
    expect(report.n).toBe(6);
    expect(report.frauds).toBe(3);
    const [notAuthentic, suspicious] = report.thresholds;
    expect(notAuthentic).toMatchObject({ below: 80, flagged: 3, precision: 2 / 3, recall: 2 / 3 });
    expect(suspicious).toMatchObject({ below: 60, flagged: 1, precision: 1, recall: 1 / 3 });
    expect(report.confusion).toEqual({
      authentic: { authentic: 2, questionable: 1, suspicious: 0 },
      bought_followers: { authentic: 0, questionable: 0, suspicious: 1 },
      engagement_pod: { authentic: 0, questionable: 1, suspicious: 0 },
      mass_followers: { authentic: 1, questionable: 0, suspicious: 0 },
    });
  });
});
