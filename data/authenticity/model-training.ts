import type { SqlRunner } from '../state/state-db.js';
import { ValidationError } from '../errors.js';

import { evaluate, type EvaluationReport, type ScoredLabel } from './evaluation.js';
import { labelsSha256, type LabelRow } from './labels.js';
import { selectLabelledScores, selectLabelledTerms, type Matched } from './labels.queries.js';
import { fitMonotoneLogistic, fitPlatt, logits, type Design } from './model-fit.js';
import { FEATURE_SPEC_VERSION, TERMS } from './model-spec.js';
import { weightVector, type TrainedModel } from './trained-model.js';

/** Training settings; the defaults are what the shipped model was trained with. */
export interface TrainOptions {
  name: string;
  version: string;
  /** Chooses the held-out calibration split. */
  seed: number;
  /** Share of the labelled creators held out for calibration and the recorded metrics. */
  holdout?: number;
  /** L2 strength per row. */
  lambda?: number;
  sweeps?: number;
  /** Fixes created_at (the committed default model, reproducible byte for byte). */
  createdAt?: string;
  /**
   * Start from this model and shrink towards its weights (FitOptions.prior), with
   * `priorStrength` (default PRIOR_STRENGTH): a few hundred labels then adjust it
   * instead of replacing it (docs/authenticity.md, "Training your own model").
   */
  prior?: TrainedModel;
  priorStrength?: number;
}

/** The pull towards a prior model's weights (FitOptions.prior), measured with `npm run eval:labels`. */
export const PRIOR_STRENGTH = 100;

export const TRAIN_DEFAULTS = { holdout: 0.3, lambda: 0.0005, sweeps: 150 } as const;
/** The fake share assumed of a fraudulent account with no stronger evidence (docs/authenticity.md). */
export const DEFAULT_FAKE_SHARE = 0.25;

export interface TrainResult {
  model: TrainedModel;
  matched: number;
  missing: LabelRow[];
}

/** FNV-1a of seed and id, as a fraction: a split that does not depend on row order. */
function splitDraw(seed: number, id: number): number {
  let h = 0x811c9dc5;
  for (const ch of `${seed}:${id}`) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193) >>> 0;
  return h / 0x1_0000_0000;
}

/** A labelled creator's model inputs, keyed across worlds (world × 10^8 + creator id; the creator id in one store). */
interface TermRow extends Matched<{ term_values: number[] }> {
  world: number;
  key: number;
}

/** A store and the labelled creators in it: one world of a training set. */
export interface LabelledWorld {
  db: SqlRunner;
  labels: readonly LabelRow[];
}

const WORLD_KEY = 100_000_000;

function design(rows: ReadonlyArray<Matched<{ term_values: number[] }>>): Design {
  const columns = TERMS.map((_, j) => Float64Array.from(rows, (r) => Number(r.row.term_values[j] ?? 0)));
  return { columns, y: Uint8Array.from(rows, (r) => r.label.label) };
}

/**
 * Trains a model from labelled creators already in the store: their current
 * features (the precompute's), a monotone L2 logistic regression on the
 * training split, Platt scaling on the held-out split, and the held-out
 * figures as the model's metrics. Deterministic for the same labels, store and
 * seed. Unknown handles are returned, not fatal — unless none match.
 */
export async function trainModel(db: SqlRunner, labels: readonly LabelRow[], o: TrainOptions): Promise<TrainResult> {
  return trainModelAcrossWorlds([{ db, labels }], o);
}

/**
 * Trains one model on the labelled creators of several worlds together (each
 * world's features are scored against its own peers), the held-out split drawn
 * across all of them: a model that has seen many settings rather than one
 * (docs/authenticity.md, "How it was trained"). With one world it is `trainModel`.
 */
export async function trainModelAcrossWorlds(worlds: readonly LabelledWorld[], o: TrainOptions): Promise<TrainResult> {
  const holdout = o.holdout ?? TRAIN_DEFAULTS.holdout;
  const matched: TermRow[] = [];
  const missing: LabelRow[] = [];
  for (const [world, { db, labels }] of worlds.entries()) {
    const found = await selectLabelledTerms(db, labels);
    missing.push(...found.missing);
    // creator order, not file order: the same labels in any order give the same model, metrics included
    found.matched.sort((a, b) => a.creatorId - b.creatorId);
    for (const m of found.matched) matched.push({ ...m, world, key: world * WORLD_KEY + m.creatorId });
  }
  const held = matched.filter((m) => splitDraw(o.seed, m.key) < holdout);
  const train = matched.filter((m) => splitDraw(o.seed, m.key) >= holdout);
  assertTrainable(train, held);
  const fit = fitMonotoneLogistic(design(train), {
    lambda: o.lambda ?? TRAIN_DEFAULTS.lambda,
    sweeps: o.sweeps ?? TRAIN_DEFAULTS.sweeps,
    ...(o.prior ? { prior: { weights: weightVector(o.prior), strength: o.priorStrength ?? PRIOR_STRENGTH } } : {}),
  });
  const heldDesign = design(held);
  const platt = fitPlatt(
    logits(heldDesign, fit, held.length),
    heldDesign.y,
    o.prior ? { platt: o.prior.calibration, strength: o.priorStrength ?? PRIOR_STRENGTH } : undefined,
  );
  const model: TrainedModel = {
    version: o.version,
    name: o.name,
    created_at: o.createdAt ?? new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    training_sha256: labelsSha256(matched.map((m) => m.label)),
    feature_spec: { version: FEATURE_SPEC_VERSION, terms: TERMS.map((t) => t.name) },
    coefficients: {
      intercept: round(fit.intercept),
      weights: Object.fromEntries(TERMS.map((t, j) => [t.name, round(fit.weights[j] ?? 0)])),
    },
    calibration: { method: 'platt', a: round(platt.a), b: round(platt.b), fake_share: DEFAULT_FAKE_SHARE },
    metrics: {},
  };
  const items: ScoredLabel[] = [];
  for (const [world, { db }] of worlds.entries()) {
    const labels = held.filter((m) => m.world === world).map((m) => m.label);
    if (labels.length > 0) items.push(...(await scoreLabels(db, labels, model)).items);
  }
  model.metrics = {
    held_out: summarise(evaluate(items)),
    train_n: train.length,
    train_frauds: train.filter((m) => m.label.label === 1).length,
    ...(worlds.length > 1 ? { worlds: worlds.length } : {}),
    seed: o.seed,
    holdout,
    lambda: o.lambda ?? TRAIN_DEFAULTS.lambda,
    sweeps: o.sweeps ?? TRAIN_DEFAULTS.sweeps,
    ...(o.prior ? { prior: o.prior.version, prior_strength: o.priorStrength ?? PRIOR_STRENGTH } : {}),
  };
  return { model, matched: matched.length, missing };
}

function assertTrainable(train: readonly Matched<unknown>[], held: readonly Matched<unknown>[]): void {
  const classes = (xs: readonly Matched<unknown>[]): number => new Set(xs.map((m) => m.label.label)).size;
  if (train.length + held.length === 0) throw ValidationError.field('labels', 'no labelled creator is in the store');
  if (classes(train) < 2 || classes(held) < 2) {
    throw ValidationError.field(
      'labels',
      'both the training and the held-out split need fraud (1) and legitimate (0) creators: label more creators',
    );
  }
}

/** 6 significant digits: what the registry and default-model.json keep (identical on every machine). */
function round(x: number): number {
  return Number(x.toPrecision(6));
}

/**
 * The figures a model keeps about itself, to 6 significant digits: DuckDB's
 * parallel sums may differ in the last bit between runs, and the committed
 * default model must be reproduced byte for byte.
 */
export function summarise(r: EvaluationReport): Record<string, unknown> {
  const r6 = (x: number | null | undefined): number | null => (x === null || x === undefined ? null : round(x));
  return {
    n: r.n,
    frauds: r.frauds,
    auc: r6(r.auc),
    brier: r6(r.brier),
    ece: r6(r.ece),
    precision_suspicious: r6(r.thresholds[1]?.precision),
    recall_suspicious: r6(r.thresholds[1]?.recall),
    precision_not_authentic: r6(r.thresholds[0]?.precision),
    recall_not_authentic: r6(r.thresholds[0]?.recall),
  };
}

/** Scores labelled creators of the store with `model`; unknown handles are returned. */
export async function scoreLabels(
  db: SqlRunner,
  labels: readonly LabelRow[],
  model: TrainedModel,
): Promise<{ items: ScoredLabel[]; missing: LabelRow[] }> {
  const { matched, missing } = await selectLabelledScores(db, labels, model);
  const items: ScoredLabel[] = matched.map((m) => ({
    score: Number(m.row.authenticity_score),
    probability: Number(m.row.fraud_probability),
    fraud: m.label.label === 1,
    label: m.label.label === 1 ? 'fraud' : 'authentic',
    pattern: m.label.pattern,
    confidence: m.row.confidence,
  }));
  return { items, missing };
}

/** Scores labelled creators of the store with `model` and evaluates them; unknown handles are returned. */
export async function evaluateModel(
  db: SqlRunner,
  labels: readonly LabelRow[],
  model: TrainedModel,
): Promise<{ report: EvaluationReport; missing: LabelRow[] }> {
  const { items, missing } = await scoreLabels(db, labels, model);
  return { report: evaluate(items), missing };
}
