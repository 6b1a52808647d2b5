import { VERDICT, verdictOf } from './model.js';

/** One scored, labelled creator. `fraud` is the ground truth: anything but an authentic label. */
export interface ScoredLabel {
  score: number;
  fraud: boolean;
  label: string;
}

/** Precision and recall of "flagged as fraud" at one score threshold. */
export interface ThresholdFigures {
  /** Flagged when the score is below this. */
  below: number;
  name: string;
  flagged: number;
  precision: number | null;
  recall: number | null;
}

export interface EvaluationReport {
  n: number;
  frauds: number;
  /** ROC AUC of "a lower score means fraud": the chance a random fraud scores below a random authentic creator. */
  auc: number | null;
  thresholds: ThresholdFigures[];
  /** label → verdict → count. */
  confusion: Record<string, Record<string, number>>;
}

/**
 * ROC AUC via the rank-sum (Mann–Whitney) statistic with tied scores given
 * their average rank, so a constant model scores exactly 0.5.
 */
export function rocAuc(items: readonly ScoredLabel[]): number | null {
  const pos = items.filter((x) => x.fraud).length;
  const neg = items.length - pos;
  if (pos === 0 || neg === 0) return null;
  // rank by suspiciousness: lower score = more suspicious = higher rank
  const sorted = [...items].sort((a, b) => b.score - a.score);
  let rankSum = 0;
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j < sorted.length && sorted[j]?.score === sorted[i]?.score) j++;
    const avgRank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (sorted[k]?.fraud) rankSum += avgRank;
    i = j;
  }
  return (rankSum - (pos * (pos + 1)) / 2) / (pos * neg);
}

/** AUC, precision/recall at the two verdict thresholds, and the label × verdict confusion matrix. */
export function evaluate(items: readonly ScoredLabel[]): EvaluationReport {
  const frauds = items.filter((x) => x.fraud).length;
  const thresholds = [
    { below: VERDICT.authentic, name: `not authentic (score < ${VERDICT.authentic})` },
    { below: VERDICT.questionable, name: `suspicious (score < ${VERDICT.questionable})` },
  ].map(({ below, name }) => {
    const flagged = items.filter((x) => x.score < below);
    const hits = flagged.filter((x) => x.fraud).length;
    return {
      below, name, flagged: flagged.length,
      precision: flagged.length > 0 ? hits / flagged.length : null,
      recall: frauds > 0 ? hits / frauds : null,
    };
  });
  const confusion: Record<string, Record<string, number>> = {};
  for (const x of items) {
    const row = (confusion[x.label] ??= { authentic: 0, questionable: 0, suspicious: 0 });
    const v = verdictOf(x.score);
    row[v] = (row[v] ?? 0) + 1;
  }
  return { n: items.length, frauds, auc: rocAuc(items), thresholds, confusion };
}

/** One signal's share of the separation: AUC of its penalty alone, and of the score without it. */
export interface SignalAblation {
  code: string;
  auc_alone: number | null;
  auc_without: number | null;
}

/**
 * Ablation over the per-signal penalties (score = max(0, 100 − Σ penalties)):
 * how well each signal separates on its own, and how much the model loses
 * without it — whether the verdicts lean on one signal or on several.
 */
export function ablate(codes: readonly string[], rows: ReadonlyArray<{ label: string; penalties: readonly number[] }>): SignalAblation[] {
  return codes.map((code, i) => {
    const alone = rows.map((r) => ({ score: 100 - (r.penalties[i] ?? 0), label: r.label, fraud: r.label !== 'authentic' }));
    const without = rows.map((r) => ({
      score: Math.max(0, 100 - r.penalties.reduce((sum, p, j) => (j === i ? sum : sum + p), 0)),
      label: r.label, fraud: r.label !== 'authentic',
    }));
    return { code, auc_alone: rocAuc(alone), auc_without: rocAuc(without) };
  });
}
