/**
 * The price model's arithmetic (docs/pricing.md): a ridge-regularised
 * least-squares fit of log price per post on log followers, log engagement
 * rate and one-hot platform, niche, country and post type, solved by Cholesky;
 * the residual spread split into a per-creator part and campaign noise; and the
 * range a creator's estimate gets from it. Pure JavaScript over a few small
 * arrays: the observations are read and the estimates written set-based in SQL
 * (pricing.ts).
 */

/** The categorical terms, each one-hot over the levels seen in the fit. */
export const PRICE_TERMS = ['platform', 'niche', 'country', 'post_type'] as const;
export type PriceTerm = (typeof PRICE_TERMS)[number];

/** A country with fewer observations than this is pooled into `other`. */
export const MIN_COUNTRY_OBSERVATIONS = 30;
/** The ridge penalty on every coefficient but the intercept (in units of observations). */
const RIDGE = 1;
/** The quantiles of a new price the range spans: about 80 % of prices fall between low and high. */
export const RANGE_QUANTILES = [0.1, 0.9] as const;

/** One campaign price: a creator's spend on a campaign divided by the posts it paid for, with the creator's features. */
export interface PriceObservation {
  creator_id: number;
  campaign_id: string;
  post_type: string;
  platform: string;
  niche: string;
  country: string;
  /** ln(followers) − ln(10,000). */
  lf: number;
  /** ln(engagement rate %) − ln(3). */
  le: number;
  /** ln(USD per post). */
  y: number;
}

/** A fitted model: coefficients and the spread of what they leave unexplained (stored as `pricing_models.model`). */
export interface PriceModel {
  intercept: number;
  followers: number;
  engagement: number;
  levels: Record<PriceTerm, Record<string, number>>;
  spread: PriceSpread;
}

/** The residual spread, in log price. */
export interface PriceSpread {
  /** Variance between creators (a creator's own price level). */
  between: number;
  /** Variance of one campaign's price around the creator's level. */
  within: number;
  /** Quantiles of the residuals (RANGE_QUANTILES): a peer-based range's offsets. */
  q_low: number;
  q_high: number;
}

function countryLevel(country: string, kept: ReadonlySet<string>): string {
  return kept.has(country) ? country : 'other';
}

/** The countries with enough observations to get their own coefficient. */
function keptCountries(obs: readonly PriceObservation[]): Set<string> {
  const n = new Map<string, number>();
  for (const o of obs) n.set(o.country, (n.get(o.country) ?? 0) + 1);
  return new Set([...n].filter(([, c]) => c >= MIN_COUNTRY_OBSERVATIONS).map(([k]) => k));
}

/** Fits the model to `obs` (at least a handful); deterministic. */
export function fitPriceModel(obs: readonly PriceObservation[]): PriceModel {
  const kept = keptCountries(obs);
  const index = new Map<string, number>();
  const levelOf = (o: PriceObservation, t: PriceTerm): string =>
    t === 'country' ? countryLevel(o.country, kept) : o[t];
  for (const o of obs) {
    for (const t of PRICE_TERMS) {
      const key = `${t}\u0000${levelOf(o, t)}`;
      if (!index.has(key)) index.set(key, 3 + index.size);
    }
  }
  const p = 3 + index.size;
  const xtx = new Float64Array(p * p);
  const xty = new Float64Array(p);
  const cols = new Int32Array(3 + PRICE_TERMS.length);
  const vals = new Float64Array(3 + PRICE_TERMS.length);
  for (const o of obs) {
    cols.set([0, 1, 2]);
    vals.set([1, o.lf, o.le]);
    PRICE_TERMS.forEach((t, i) => {
      cols[3 + i] = index.get(`${t}\u0000${levelOf(o, t)}`)!;
      vals[3 + i] = 1;
    });
    for (let a = 0; a < cols.length; a++) {
      const ca = cols[a]!;
      xty[ca] = xty[ca]! + vals[a]! * o.y;
      for (let b = 0; b < cols.length; b++) {
        const at = ca * p + cols[b]!;
        xtx[at] = xtx[at]! + vals[a]! * vals[b]!;
      }
    }
  }
  for (let i = 1; i < p; i++) xtx[i * p + i] = xtx[i * p + i]! + RIDGE;
  const beta = choleskySolve(xtx, xty, p);
  const levels = Object.fromEntries(PRICE_TERMS.map((t) => [t, {}])) as PriceModel['levels'];
  for (const [key, i] of index) {
    const [t, level] = key.split('\u0000') as [PriceTerm, string];
    levels[t][level] = beta[i]!;
  }
  if (levels.country['other'] === undefined) levels.country['other'] = 0;
  const model: PriceModel = {
    intercept: beta[0]!,
    followers: beta[1]!,
    engagement: beta[2]!,
    levels,
    spread: { between: 0, within: 0, q_low: 0, q_high: 0 },
  };
  return { ...model, spread: residualSpread(model, obs) };
}

/** Solves A x = b for a symmetric positive definite A (row-major, n × n). */
export function choleskySolve(a: Float64Array, b: Float64Array, n: number): Float64Array {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * n + j]!;
      for (let k = 0; k < j; k++) s -= l[i * n + k]! * l[j * n + k]!;
      l[i * n + j] = i === j ? Math.sqrt(Math.max(s, 1e-12)) : s / l[j * n + j]!;
    }
  }
  const z = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = b[i]!;
    for (let k = 0; k < i; k++) s -= l[i * n + k]! * z[k]!;
    z[i] = s / l[i * n + i]!;
  }
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = z[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * x[k]!;
    x[i] = s / l[i * n + i]!;
  }
  return x;
}

/** The model's log price for an observation's creator and post type (no creator effect). */
export function predictLog(m: PriceModel, o: Omit<PriceObservation, 'y' | 'campaign_id' | 'creator_id'>): number {
  const country = m.levels.country[o.country] ?? m.levels.country['other'] ?? 0;
  return (
    m.intercept +
    m.followers * o.lf +
    m.engagement * o.le +
    (m.levels.platform[o.platform] ?? 0) +
    (m.levels.niche[o.niche] ?? 0) +
    country +
    (m.levels.post_type[o.post_type] ?? 0)
  );
}

/** The q-quantile of sorted values (linear between neighbours). */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** Each creator's residuals under `m`. */
export function residualsByCreator(m: PriceModel, obs: readonly PriceObservation[]): Map<number, number[]> {
  const by = new Map<number, number[]>();
  for (const o of obs) {
    const list = by.get(o.creator_id) ?? [];
    list.push(o.y - predictLog(m, o));
    by.set(o.creator_id, list);
  }
  return by;
}

/**
 * The residual variance split: `within` pooled over creators with two or more
 * prices (each around its own mean), `between` what is left of the total; and
 * the residual quantiles a peer-based range uses.
 */
function residualSpread(m: PriceModel, obs: readonly PriceObservation[]): PriceSpread {
  const all: number[] = [];
  let ss = 0;
  let df = 0;
  for (const r of residualsByCreator(m, obs).values()) {
    all.push(...r);
    if (r.length < 2) continue;
    const mean = r.reduce((s, x) => s + x, 0) / r.length;
    ss += r.reduce((s, x) => s + (x - mean) ** 2, 0);
    df += r.length - 1;
  }
  all.sort((a, b) => a - b);
  const mean = all.reduce((s, x) => s + x, 0) / Math.max(all.length, 1);
  const total = all.reduce((s, x) => s + (x - mean) ** 2, 0) / Math.max(all.length - 1, 1);
  const within = df > 0 ? ss / df : total / 2;
  return {
    between: Math.max(total - within, 1e-4),
    within,
    q_low: quantile(all, RANGE_QUANTILES[0]),
    q_high: quantile(all, RANGE_QUANTILES[1]),
  };
}

/** Where a creator's range sits around the model's log price: its own-effect shift and the low/high offsets. */
export interface PriceInterval {
  shift: number;
  low: number;
  high: number;
}

/**
 * A creator with `n` campaign prices whose residuals average `meanResidual`:
 * its own effect shrunk toward 0 by n·between / (n·between + within), and a
 * range from the variance of a new price around that — the peer quantiles
 * scaled by the ratio of standard deviations. Without prices (n = 0): no shift
 * and the peer quantiles. `intervalSql` is the same in SQL.
 */
export function priceInterval(s: PriceSpread, n: number, meanResidual: number): PriceInterval {
  if (n === 0) return { shift: 0, low: s.q_low, high: s.q_high };
  const k = (n * s.between) / (n * s.between + s.within);
  const sd = Math.sqrt((1 - k) ** 2 * s.between + (k * k * s.within) / n + s.within);
  const scale = sd / Math.sqrt(s.between + s.within);
  return { shift: k * meanResidual, low: s.q_low * scale, high: s.q_high * scale };
}

/**
 * `priceInterval` as SQL expressions over a count and a mean residual column
 * (NULL count: no prices). The spread's numbers are the model's, not user input.
 */
export function intervalSql(s: PriceSpread, n: string, r: string): { shift: string; low: string; high: string } {
  const k = `(${n} * ${s.between} / (${n} * ${s.between} + ${s.within}))`;
  const scale = `(sqrt(pow(1 - ${k}, 2) * ${s.between} + ${k} * ${k} * ${s.within} / ${n} + ${s.within}) / ${Math.sqrt(s.between + s.within)})`;
  return {
    shift: `coalesce(${k} * ${r}, 0)`,
    low: `coalesce(${s.q_low} * ${scale}, ${s.q_low})`,
    high: `coalesce(${s.q_high} * ${scale}, ${s.q_high})`,
  };
}

/** The confidence of an estimate resting on `n` campaign prices (the authenticity verdict's words). */
export function priceConfidence(n: number): 'high' | 'medium' | 'low' {
  return n >= 3 ? 'high' : n >= 1 ? 'medium' : 'low';
}
