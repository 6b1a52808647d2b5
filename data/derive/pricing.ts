import type { Queryable } from '../queryable.js';
import { scopeFilter, type CreatorScope } from '../sql.js';
import type { SqlRunner } from '../state/state-db.js';
import {
  fitPriceModel,
  intervalSql,
  predictLog,
  priceInterval,
  PRICE_TERMS,
  type PriceModel,
  type PriceObservation,
} from './pricing-fit.js';
import { evaluatePricing, type PricingEvaluation } from './pricing-eval.js';

/** Fewer campaign prices than this fit no model (the estimates stay as they are). */
export const MIN_PRICE_OBSERVATIONS = 50;

/** A creator's log followers, centred at 10,000 (a creator column reference `c`). */
const FOLLOWERS_SQL = 'ln(greatest(c.followers, 100)) - ln(10000)';
/** A creator's log engagement rate (percent), centred at 3 %; a creator without posts reads as 2 %. */
const ENGAGEMENT_SQL = 'ln(least(greatest(coalesce(c.engagement_rate, 2.0), 0.05), 50.0)) - ln(3.0)';

/**
 * The campaign prices, one row per creator and campaign: its spend on the
 * campaign divided by the posts it was paid for, for completed USD campaigns
 * whose roster says the post type and count (docs/pricing.md).
 */
export function observationsSql(): string {
  return `SELECT cc.creator_id, cc.campaign_id, cc.post_type, c.platform, c.niche, coalesce(c.country, '') AS country,
      ${FOLLOWERS_SQL} AS lf, ${ENGAGEMENT_SQL} AS le, ln(sum(m.spend) / any_value(cc.posts)) AS y
    FROM campaign_creators cc
    JOIN campaigns k ON k.campaign_id = cc.campaign_id AND k.status = 'completed' AND k.currency = 'USD'
    JOIN campaign_metrics m ON m.campaign_id = cc.campaign_id AND m.creator_id = cc.creator_id
    JOIN creators c ON c.creator_id = cc.creator_id
    WHERE cc.post_type IS NOT NULL AND cc.posts > 0
    GROUP BY ALL HAVING sum(m.spend) > 0`;
}

/** Every campaign price in the store, in a stable order. */
export function readObservations(db: SqlRunner): Promise<PriceObservation[]> {
  return readRows(db, `(${observationsSql()})`);
}

async function readRows(db: SqlRunner, relation: string): Promise<PriceObservation[]> {
  const rows = await db.all<Record<string, unknown>>(`SELECT * FROM ${relation} ORDER BY creator_id, campaign_id`);
  return rows.map((r) => toObservation((column) => r[column]));
}

/** The columns of a price observation, as `observationsSql` names them. */
type ObservationColumn = keyof PriceObservation;

/** One observation from its columns' values, however they were read (rows or columns). */
function toObservation(get: (column: ObservationColumn) => unknown): PriceObservation {
  return {
    creator_id: Number(get('creator_id')),
    campaign_id: String(get('campaign_id')),
    post_type: String(get('post_type')),
    platform: String(get('platform')),
    niche: String(get('niche')),
    country: String(get('country')),
    lf: Number(get('lf')),
    le: Number(get('le')),
    y: Number(get('y')),
  };
}

/** What a refit did. */
export interface PricingFit {
  version: string;
  observations: number;
  estimates: number;
  evaluation: PricingEvaluation;
  seconds: { read: number; fit: number; write: number };
}

/**
 * Fits the price model on every campaign price in the store, stores it as the
 * next `pricing_models` version with its held-out figures (pricing-eval.ts),
 * and rewrites every creator's estimates and `creators.price_post_usd` with it.
 * Null (nothing written) while the store holds fewer than MIN_PRICE_OBSERVATIONS prices.
 */
export async function refitPrices(db: Queryable, now: Date = new Date()): Promise<PricingFit | null> {
  const t0 = performance.now();
  // read once: the fit reads it in JavaScript, the write joins it for each creator's own prices
  await db.run(`CREATE OR REPLACE TEMP TABLE pricing_obs AS ${observationsSql()}`);
  try {
    return await fitAndWrite(db, await readColumns(db, 'pricing_obs'), now, t0);
  } finally {
    await db.run('DROP TABLE IF EXISTS pricing_obs');
  }
}

/**
 * `readRows` by columns: half a million prices at 1M creators are read as nine
 * arrays, not half a million row objects.
 */
async function readColumns(db: Queryable, relation: string): Promise<PriceObservation[]> {
  const reader = await db.connection.runAndReadAll(`SELECT * FROM ${relation} ORDER BY creator_id, campaign_id`);
  const c = reader.getColumnsObjectJS();
  const ids = c['creator_id'] ?? [];
  return ids.map((_, i) => toObservation((column) => c[column]?.[i]));
}

async function fitAndWrite(db: SqlRunner, obs: PriceObservation[], now: Date, t0: number): Promise<PricingFit | null> {
  if (obs.length < MIN_PRICE_OBSERVATIONS) return null;
  const t1 = performance.now();
  const evaluation = evaluatePricing(obs);
  const model = fitPriceModel(obs);
  const version = await nextVersion(db);
  const t2 = performance.now();
  await db.run(
    'INSERT INTO pricing_models (version, fitted_at, observations, model, metrics) VALUES (?, ?::TIMESTAMP, ?, ?::JSON, ?::JSON)',
    [
      version,
      now.toISOString().replace('T', ' ').replace('Z', ''),
      obs.length,
      JSON.stringify(model),
      JSON.stringify(evaluation),
    ],
  );
  const estimates = await writeEstimates(db, model, version);
  const t3 = performance.now();
  const s = (a: number, b: number): number => (b - a) / 1000;
  return {
    version,
    observations: obs.length,
    estimates,
    evaluation,
    seconds: { read: s(t0, t1), fit: s(t1, t2), write: s(t2, t3) },
  };
}

/** `price-1.<n>`: the model's number among the fits the store has stored. */
async function nextVersion(db: SqlRunner): Promise<string> {
  const n = Number((await db.one<{ n: number }>('SELECT count(*) AS n FROM pricing_models'))?.n ?? 0);
  return `price-1.${n + 1}`;
}

/** The newest fitted model's version and coefficients; null before the first fit. */
export async function activePricingModel(db: SqlRunner): Promise<{ version: string; model: PriceModel } | null> {
  const row = await db.one<{ version: string; model: string }>(
    'SELECT version, model::VARCHAR AS model FROM pricing_models ORDER BY fitted_at DESC, observations DESC, version DESC LIMIT 1',
  );
  return row ? { version: row.version, model: JSON.parse(row.model) as PriceModel } : null;
}

/**
 * Gives the creators of `scope` that have no estimate yet (creators loaded since
 * the last fit) the active model's estimates and their `price_post_usd`: basis
 * `peers`, as the next fit would store them for a creator without campaign
 * prices (a creator's prices come with campaign loads, which refit). Search by
 * price then finds a new creator once its derivation commits; a creator that
 * already has estimates keeps them until the next fit. Nothing before the first
 * fit. Answers the rows written.
 */
export async function priceNewCreators(db: SqlRunner, scope: CreatorScope): Promise<number> {
  const active = await activePricingModel(db);
  if (!active) return 0;
  const unpriced = `${scopeFilter(scope, 'c.creator_id')}
    AND NOT EXISTS (SELECT 1 FROM price_estimates e WHERE e.creator_id = c.creator_id)`;
  return writeEstimates(db, active.model, active.version, unpriced);
}

/**
 * Writes the estimates set-based: the coefficients as a small temp table joined
 * to `creators` (the model's log price per creator, then per post type), each
 * creator's own mean residual from its campaign prices (`pricing_obs`), one
 * DELETE and one INSERT of `price_estimates`, then `price_post_usd` where it
 * changed. Every creator; with `only` (a condition on creators `c`), those it
 * holds, priced from peers alone.
 */
async function writeEstimates(db: SqlRunner, m: PriceModel, version: string, only?: string): Promise<number> {
  const levels = PRICE_TERMS.flatMap((t) =>
    Object.entries(m.levels[t]).map(([level, coef]) => [t, level, coef] as const),
  );
  await db.run(
    `CREATE OR REPLACE TEMP TABLE pricing_levels AS
      SELECT unnest($1::VARCHAR[]) AS term, unnest($2::VARCHAR[]) AS level, unnest($3::DOUBLE[]) AS coef`,
    [levels.map((l) => l[0]), levels.map((l) => l[1]), levels.map((l) => l[2])],
  );
  const other = m.levels.country['other'] ?? 0;
  await db.run(
    `CREATE OR REPLACE TEMP TABLE pricing_mu AS
      SELECT c.creator_id, $1 + $2 * (${FOLLOWERS_SQL}) + $3 * (${ENGAGEMENT_SQL})
        + coalesce(p.coef, 0) + coalesce(n.coef, 0) + coalesce(k.coef, $4) AS mu
      FROM creators c
      LEFT JOIN pricing_levels p ON p.term = 'platform' AND p.level = c.platform
      LEFT JOIN pricing_levels n ON n.term = 'niche' AND n.level = c.niche
      LEFT JOIN pricing_levels k ON k.term = 'country' AND k.level = c.country
      ${only ? `WHERE ${only}` : ''}`,
    [m.intercept, m.followers, m.engagement, other],
  );
  await db.run(
    only
      ? 'CREATE OR REPLACE TEMP TABLE pricing_own AS SELECT NULL::INTEGER AS creator_id, 0 AS n, 0.0 AS r WHERE false'
      : `CREATE OR REPLACE TEMP TABLE pricing_own AS
    SELECT o.creator_id, count(*)::INTEGER AS n, avg(o.y - b.mu - t.coef) AS r
    FROM pricing_obs o
    JOIN pricing_mu b USING (creator_id)
    JOIN pricing_levels t ON t.term = 'post_type' AND t.level = o.post_type
    GROUP BY o.creator_id`,
  );
  // per creator first (its shift, range and words), so the INSERT's six rows per creator are only sums
  const iv = intervalSql(m.spread, 'w.n', 'w.r');
  await db.run(`CREATE OR REPLACE TEMP TABLE pricing_base AS
    SELECT b.creator_id, b.mu + ${iv.shift} AS mid, ${iv.low} AS lo, ${iv.high} AS hi, coalesce(w.n, 0) AS n,
      CASE WHEN w.n IS NULL THEN 'peers' ELSE 'campaigns' END AS basis,
      CASE WHEN w.n IS NULL THEN 'low' WHEN w.n >= 3 THEN 'high' ELSE 'medium' END AS confidence
    FROM pricing_mu b LEFT JOIN pricing_own w USING (creator_id)`);
  await db.run(
    only
      ? 'DELETE FROM price_estimates WHERE creator_id IN (SELECT creator_id FROM pricing_mu)'
      : 'DELETE FROM price_estimates',
  );
  const written = await db.run(
    `INSERT INTO price_estimates (creator_id, post_type, low, mid, high, basis, observations, confidence, model_version)
    SELECT b.creator_id, t.level, round(exp(b.mid + t.coef + b.lo), 2), round(exp(b.mid + t.coef), 2),
      round(exp(b.mid + t.coef + b.hi), 2), b.basis, b.n, b.confidence, $1
    FROM pricing_base b CROSS JOIN (SELECT level, coef FROM pricing_levels WHERE term = 'post_type') t`,
    [version],
  );
  await db.run(`UPDATE creators c SET price_post_usd = e.mid FROM price_estimates e
    WHERE e.creator_id = c.creator_id AND e.post_type = 'post' AND c.price_post_usd IS DISTINCT FROM e.mid
    ${only ? 'AND e.creator_id IN (SELECT creator_id FROM pricing_mu)' : ''}`);
  // a model without a `post` price (no such post type among the prices) leaves the column empty
  if (!only && m.levels.post_type['post'] === undefined)
    await db.run(`UPDATE creators SET price_post_usd = NULL WHERE price_post_usd IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM price_estimates e WHERE e.creator_id = creators.creator_id AND e.post_type = 'post')`);
  for (const t of ['pricing_levels', 'pricing_mu', 'pricing_own', 'pricing_base'])
    await db.run(`DROP TABLE IF EXISTS ${t}`);
  return written;
}

/** A creator's profile figures the model reads. */
export interface PricedCreator {
  followers: number;
  engagement_rate: number | null;
  platform: string;
  niche: string;
  country: string | null;
}

/** One post type's estimate, as `price_estimates` stores it (a type, so it is also a row: `Record<string, unknown>`). */
export type PriceEstimate = {
  post_type: string;
  low: number;
  mid: number;
  high: number;
  basis: 'campaigns' | 'peers';
  observations: number;
  confidence: 'high' | 'medium' | 'low';
  model_version: string;
};

/**
 * The peer-based estimates of a creator the newest fit did not see (loaded
 * since): the same arithmetic as the write (`FOLLOWERS_SQL`, `ENGAGEMENT_SQL`,
 * the peer range), cheapest first. A creator without campaign prices, so
 * exactly what the next fit will store for it while the model stays the same.
 */
export function peerEstimates(active: { version: string; model: PriceModel }, c: PricedCreator): PriceEstimate[] {
  const m = active.model;
  const iv = priceInterval(m.spread, 0, 0);
  const features = {
    platform: c.platform,
    niche: c.niche,
    country: c.country ?? '',
    lf: Math.log(Math.max(Number(c.followers), 100)) - Math.log(10000),
    le: Math.log(Math.min(Math.max(c.engagement_rate ?? 2, 0.05), 50)) - Math.log(3),
  };
  const cents = (x: number): number => Math.round(x * 100) / 100;
  return Object.keys(m.levels.post_type)
    .map((type) => {
      const mid = predictLog(m, { ...features, post_type: type });
      return {
        post_type: type,
        low: cents(Math.exp(mid + iv.low)),
        mid: cents(Math.exp(mid)),
        high: cents(Math.exp(mid + iv.high)),
        basis: 'peers' as const,
        observations: 0,
        confidence: 'low' as const,
        model_version: active.version,
      };
    })
    .sort((a, b) => a.mid - b.mid || (a.post_type < b.post_type ? -1 : 1));
}
