import { VERDICT, verdictOf } from './model.js';

/** One scored, labelled creator. `fraud` is the ground truth: anything but an authentic label. */
export interface ScoredLabel {
  score: number;
  fraud: boolean;
  label: string;
  /** The calibrated fraud probability, when the model gives one. */
  probability?: number;
  /** The labelled case (e.g. `small_spikes`, `follow_back`), when the labels name one. */
  pattern?: string | null;
  /** The check's confidence, when the scorer gives one. */
  confidence?: 'high' | 'medium' | 'low';
}

/** Calibration within one confidence level. */
export interface ConfidenceFigures {
  confidence: 'high' | 'medium' | 'low';
  n: number;
  frauds: number;
  mean_predicted: number;
  observed: number;
  ece: number;
  /** Share of the level's creators called suspicious, and of those how many are fraud. */
  suspicious: number;
  precision_suspicious: number | null;
}

/** How legitimate creators with a labelled oddity (any legitimate pattern but `ordinary`) are called. */
export interface UnusualLegitFigures {
  n: number;
  /** Share called suspicious (score < 60). */
  suspicious: number;
  /** Share called anything but authentic (score < 80). */
  not_authentic: number;
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
  /** Mean squared error of the fraud probability (null without probabilities). */
  brier: number | null;
  /** Expected calibration error over RELIABILITY_BINS equal-width bins. */
  ece: number | null;
  reliability: ReliabilityBin[];
  /** Per labelled pattern: how many, and the share flagged at each verdict threshold (recall for fraud, FPR for legitimate). */
  patterns: PatternFigures[];
  /** Calibration per confidence level (when the scorer gives confidences). */
  by_confidence: ConfidenceFigures[];
  /** Legitimate but unusual creators (null without patterns). */
  unusual_legit: UnusualLegitFigures | null;
}

/** One bin of the reliability diagram: predicted vs observed fraud rate. */
export interface ReliabilityBin {
  lo: number;
  hi: number;
  n: number;
  mean_predicted: number | null;
  observed: number | null;
}

export interface PatternFigures {
  pattern: string;
  fraud: boolean;
  n: number;
  /** Share with score < 80 (questionable or suspicious). */
  flagged_below_80: number;
  /** Share with score < 60 (suspicious). */
  flagged_below_60: number;
}

/** Bins of the reliability diagram and the ECE. */
export const RELIABILITY_BINS = 10;

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
  for (let i = 0; i < sorted.length; ) {
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
      below,
      name,
      flagged: flagged.length,
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
  const withP = items.filter((x): x is ScoredLabel & { probability: number } => typeof x.probability === 'number');
  const reliability = withP.length > 0 ? reliabilityBins(withP) : [];
  return {
    n: items.length,
    frauds,
    auc: rocAuc(items),
    thresholds,
    confusion,
    brier:
      withP.length > 0 ? withP.reduce((s, x) => s + (x.probability - (x.fraud ? 1 : 0)) ** 2, 0) / withP.length : null,
    ece:
      withP.length > 0
        ? reliability.reduce(
            (s, b) => s + (b.n / withP.length) * Math.abs((b.mean_predicted ?? 0) - (b.observed ?? 0)),
            0,
          )
        : null,
    reliability,
    patterns: patternFigures(items),
    by_confidence: confidenceFigures(withP),
    unusual_legit: unusualLegit(items),
  };
}

function confidenceFigures(items: ReadonlyArray<ScoredLabel & { probability: number }>): ConfidenceFigures[] {
  return (['high', 'medium', 'low'] as const).flatMap((confidence) => {
    const xs = items.filter((x) => x.confidence === confidence);
    if (xs.length === 0) return [];
    const frauds = xs.filter((x) => x.fraud).length;
    const bins = reliabilityBins(xs);
    const called = xs.filter((x) => x.score < VERDICT.questionable);
    return [
      {
        confidence,
        n: xs.length,
        frauds,
        mean_predicted: xs.reduce((s, x) => s + x.probability, 0) / xs.length,
        observed: frauds / xs.length,
        ece: bins.reduce((s, b) => s + (b.n / xs.length) * Math.abs((b.mean_predicted ?? 0) - (b.observed ?? 0)), 0),
        suspicious: called.length / xs.length,
        precision_suspicious: called.length > 0 ? called.filter((x) => x.fraud).length / called.length : null,
      },
    ];
  });
}

function unusualLegit(items: readonly ScoredLabel[]): UnusualLegitFigures | null {
  const xs = items.filter((x) => !x.fraud && x.pattern && x.pattern !== 'ordinary' && x.pattern !== 'authentic');
  if (xs.length === 0) return null;
  return {
    n: xs.length,
    suspicious: xs.filter((x) => x.score < VERDICT.questionable).length / xs.length,
    not_authentic: xs.filter((x) => x.score < VERDICT.authentic).length / xs.length,
  };
}

/** Equal-width bins of predicted probability, each with its mean prediction and observed fraud rate. */
export function reliabilityBins(
  items: ReadonlyArray<{ probability: number; fraud: boolean }>,
  bins = RELIABILITY_BINS,
): ReliabilityBin[] {
  const acc = Array.from({ length: bins }, (_, i) => ({ lo: i / bins, hi: (i + 1) / bins, n: 0, sumP: 0, frauds: 0 }));
  for (const x of items) {
    const b = acc[Math.min(bins - 1, Math.max(0, Math.floor(x.probability * bins)))];
    if (!b) continue;
    b.n++;
    b.sumP += x.probability;
    b.frauds += x.fraud ? 1 : 0;
  }
  return acc.map((b) => ({
    lo: b.lo,
    hi: b.hi,
    n: b.n,
    mean_predicted: b.n ? b.sumP / b.n : null,
    observed: b.n ? b.frauds / b.n : null,
  }));
}

function patternFigures(items: readonly ScoredLabel[]): PatternFigures[] {
  const groups = new Map<string, ScoredLabel[]>();
  for (const x of items) {
    if (!x.pattern) continue;
    const key = `${x.fraud ? 1 : 0}|${x.pattern}`;
    const group = groups.get(key);
    if (group) group.push(x);
    else groups.set(key, [x]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => b.localeCompare(a))
    .map(([key, xs]) => ({
      pattern: key.slice(2),
      fraud: key.startsWith('1'),
      n: xs.length,
      flagged_below_80: xs.filter((x) => x.score < VERDICT.authentic).length / xs.length,
      flagged_below_60: xs.filter((x) => x.score < VERDICT.questionable).length / xs.length,
    }));
}
