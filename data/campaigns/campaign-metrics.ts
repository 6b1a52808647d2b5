/** The additive daily metrics `campaign_metrics` holds per (campaign, day, creator). */
export const COUNT_METRICS = [
  'impressions',
  'reach',
  'views',
  'likes',
  'comments',
  'shares',
  'saves',
  'clicks',
  'conversions',
] as const;
export const MONEY_METRICS = ['revenue', 'spend'] as const;
export const SUMMED_METRICS = [...COUNT_METRICS, ...MONEY_METRICS] as const;

export type SummedMetric = (typeof SUMMED_METRICS)[number];

/** Sums of the additive metrics over some set of daily rows. */
export type MetricSums = Record<SummedMetric, number>;

/** Campaign metrics of README.md: the sums plus ratios derived from them. */
export interface CampaignMetrics extends MetricSums {
  engagements: number;
  /** Percent of impressions (README.md: rates on the 0–100 scale). */
  engagement_rate: number | null;
  /** Clicks per 100 impressions. */
  ctr: number | null;
  /** Spend per 1,000 impressions. */
  cpm: number | null;
  cpc: number | null;
  cpe: number | null;
  /** Revenue per unit of spend (a multiple, not a percent). */
  roas: number | null;
}

/** Decimal places kept for money sums and derived ratios. */
const MONEY_DECIMALS = 2;
const RATIO_DECIMALS = 4;

/** All-zero sums (a campaign, creator or day without metric rows). */
export function zeroSums(): MetricSums {
  return Object.fromEntries(SUMMED_METRICS.map((m) => [m, 0])) as MetricSums;
}

/**
 * Derives the ratio metrics from sums — never by averaging per-day or
 * per-creator ratios, which would weight a quiet day like a busy one. A zero
 * denominator gives `null` (no impressions means no meaningful CTR), never
 * NaN, Infinity or an error.
 */
export function deriveMetrics(sums: MetricSums): CampaignMetrics {
  const engagements = sums.likes + sums.comments + sums.shares + sums.saves;
  const revenue = round(sums.revenue, MONEY_DECIMALS);
  const spend = round(sums.spend, MONEY_DECIMALS);
  return {
    ...sums,
    revenue,
    spend,
    engagements,
    engagement_rate: ratio(engagements * 100, sums.impressions),
    ctr: ratio(sums.clicks * 100, sums.impressions),
    cpm: ratio(sums.spend * 1000, sums.impressions),
    cpc: ratio(sums.spend, sums.clicks),
    cpe: ratio(sums.spend, engagements),
    roas: ratio(sums.revenue, sums.spend),
  };
}

/** Sums out of a query row whose columns are named after the metrics (missing or null → 0). */
export function sumsFromRow(row: Record<string, unknown>): MetricSums {
  const sums = zeroSums();
  for (const m of SUMMED_METRICS) sums[m] = Number(row[m] ?? 0);
  return sums;
}

function ratio(numerator: number, denominator: number): number | null {
  if (!(denominator > 0) || !Number.isFinite(numerator)) return null;
  return round(numerator / denominator, RATIO_DECIMALS);
}

function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}
