/**
 * Plain-TypeScript fitting for the authenticity model: an L2-regularised
 * logistic regression with non-negative weights (cyclic coordinate descent with
 * damped Newton steps, a fixed order and a fixed number of sweeps, so the same
 * data always gives the same coefficients), and Platt scaling for calibration.
 */

/** A design matrix stored by column (term), each a Float64Array over the rows. */
export interface Design {
  columns: Float64Array[];
  y: Uint8Array;
}

export interface LogisticFit {
  intercept: number;
  weights: number[];
}

export interface FitOptions {
  /** L2 strength per row: the penalty is (lambda × n / 2) Σ w². */
  lambda: number;
  sweeps: number;
  /**
   * A model to start from and shrink towards: adds (strength / 2) Σ (w − prior_j)²,
   * a fixed pull that a few labels cannot outweigh and many labels can (a
   * customer's labels adjust the built-in model rather than replace it).
   */
  prior?: { weights: readonly number[]; strength: number };
}

const sigmoid = (x: number): number => 1 / (1 + Math.exp(-x));
/** A Newton step larger than this (in logit units) is cut: keeps early sweeps from overshooting. */
const MAX_STEP = 2;

/**
 * Fits P(y = 1) = σ(b + Σ w_j x_j) with every w_j ≥ 0 (the intercept is free)
 * by minimising the log-loss plus the L2 penalty. Non-negative weights on
 * one-sided features make the model monotone: more deviation never lowers the
 * probability, and a missing feature (0) never raises it.
 */
export function fitMonotoneLogistic(d: Design, o: FitOptions): LogisticFit {
  const n = d.y.length;
  const k = d.columns.length;
  const lambda = o.lambda * n;
  const weights = Array.from({ length: k }, (_, j) => o.prior?.weights[j] ?? 0);
  const positives = d.y.reduce((s, v) => s + v, 0);
  let intercept = Math.log((positives + 0.5) / (n - positives + 0.5));
  const eta = new Float64Array(n).fill(intercept);
  weights.forEach((w, j) => applyStep(eta, d.columns[j] ?? null, w));
  const pull = o.prior?.strength ?? 0;
  for (let sweep = 0; sweep < o.sweeps; sweep++) {
    intercept += coordinateStep(d, eta, null, 0, 0);
    for (let j = 0; j < k; j++) {
      const w = weights[j] ?? 0;
      const step = coordinateStep(d, eta, d.columns[j] ?? null, w, lambda, pull, o.prior?.weights[j] ?? 0);
      const next = Math.max(0, w + step);
      applyStep(eta, d.columns[j] ?? null, next - w);
      weights[j] = next;
    }
  }
  return { intercept, weights };
}

/** One damped Newton step for one coordinate (x = null: the intercept); updates eta for the intercept only. */
function coordinateStep(
  d: Design,
  eta: Float64Array,
  x: Float64Array | null,
  w: number,
  lambda: number,
  pull = 0,
  centre = 0,
): number {
  let g = lambda * w + pull * (w - centre);
  let h = lambda + pull + 1e-9;
  for (let i = 0; i < eta.length; i++) {
    const xi = x === null ? 1 : (x[i] ?? 0);
    if (xi === 0) continue;
    const p = sigmoid(eta[i] ?? 0);
    g += (p - (d.y[i] ?? 0)) * xi;
    h += p * (1 - p) * xi * xi;
  }
  const step = Math.max(-MAX_STEP, Math.min(MAX_STEP, -g / h));
  if (x === null) for (let i = 0; i < eta.length; i++) eta[i] = (eta[i] ?? 0) + step;
  return step;
}

function applyStep(eta: Float64Array, x: Float64Array | null, delta: number): void {
  if (delta === 0 || x === null) return;
  for (let i = 0; i < eta.length; i++) eta[i] = (eta[i] ?? 0) + delta * (x[i] ?? 0);
}

/** The model's raw logit for each row. */
export function logits(d: Pick<Design, 'columns'>, fit: LogisticFit, n: number): Float64Array {
  const out = new Float64Array(n).fill(fit.intercept);
  fit.weights.forEach((w, j) => applyStep(out, d.columns[j] ?? null, w));
  return out;
}

export interface Platt {
  a: number;
  b: number;
}

/**
 * Platt scaling: P = σ(a·s + b) fitted on held-out scores `s` by Newton's
 * method, with Platt's smoothed targets ((N₊+1)/(N₊+2), 1/(N₋+2)) so a
 * separable held-out set does not push the probabilities to 0 and 1. `a` is
 * kept positive: calibration never reverses the model's order.
 */
export function fitPlatt(
  scores: ArrayLike<number>,
  y: ArrayLike<number>,
  prior?: { platt: Platt; strength: number },
): Platt {
  let pos = 0;
  for (let i = 0; i < y.length; i++) pos += y[i] ?? 0;
  const hi = (pos + 1) / (pos + 2);
  const lo = 1 / (y.length - pos + 2);
  // with a prior, start from its calibration and shrink towards it (a few held-out labels cannot set it alone)
  const pull = prior?.strength ?? 0;
  const a0 = prior?.platt.a ?? 1;
  const b0 = prior?.platt.b ?? 0;
  let a = a0;
  let b = b0;
  for (let iter = 0; iter < 100; iter++) {
    let ga = pull * (a - a0),
      gb = pull * (b - b0),
      haa = 1e-9 + pull,
      hab = 0,
      hbb = 1e-9 + pull;
    for (let i = 0; i < scores.length; i++) {
      const s = scores[i] ?? 0;
      const p = sigmoid(a * s + b);
      const r = p - ((y[i] ?? 0) ? hi : lo);
      const v = p * (1 - p);
      ga += r * s;
      gb += r;
      haa += v * s * s;
      hab += v * s;
      hbb += v;
    }
    const det = haa * hbb - hab * hab;
    if (Math.abs(det) < 1e-12) break;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a = Math.max(0.05, a - da);
    b -= db;
    if (Math.abs(da) + Math.abs(db) < 1e-10) break;
  }
  return { a, b };
}

export { sigmoid };
