import { deriveMetrics, sumsFromRow, zeroSums, type CampaignMetrics } from './campaign-metrics.js';
import type { CampaignRow } from './campaign.queries.js';

/** Campaign statuses of README.md. */
export const CAMPAIGN_STATUSES = ['draft', 'active', 'paused', 'completed'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

/** A campaign with its metrics in the requested window (the collection's item). */
export interface CampaignSummary {
  id: string;
  name: string;
  brand: string | null;
  status: CampaignStatus;
  starts_on: string | null;
  ends_on: string | null;
  currency: string;
  budget: number | null;
  metrics: CampaignMetrics;
  updated_at: string;
}

/**
 * One creator's totals on a campaign, its sponsored posts' engagement rate as a
 * multiple of its organic posts' (null when it lacks either), and its CPM as a
 * multiple of its peers' (null without spend, impressions or enough peers).
 */
export type CreatorTotals = {
  handle: string;
  platform: string;
  engagement_rate_vs_organic: number | null;
  cpm_vs_peers: number | null;
} & CampaignMetrics;
/** One day's totals over all the campaign's creators. */
export type DailyTotals = { date: string } & CampaignMetrics;

/** A campaign with its per-creator and per-day breakdowns. */
export interface CampaignDetail extends CampaignSummary {
  creators: CreatorTotals[];
  daily: DailyTotals[];
}

/** A campaign row plus its (possibly absent) sums row → the API's campaign. */
export function toCampaignSummary(row: CampaignRow, sums: Record<string, unknown> | undefined): CampaignSummary {
  return {
    id: row.campaign_id,
    name: row.name,
    brand: row.brand ?? null,
    status: row.status as CampaignStatus,
    starts_on: row.starts_on ?? null,
    ends_on: row.ends_on ?? null,
    currency: row.currency,
    budget: row.budget === null || row.budget === undefined ? null : Number(row.budget),
    metrics: deriveMetrics(sums ? sumsFromRow(sums) : zeroSums()),
    updated_at: row.updated_at,
  };
}

/** A per-creator sums row → handle, platform, derived metrics and sponsored against organic engagement. */
export function toCreatorTotals(row: Record<string, unknown>): CreatorTotals {
  return {
    handle: String(row['handle']),
    platform: String(row['platform']),
    ...deriveMetrics(sumsFromRow(row)),
    engagement_rate_vs_organic: nullableNumber(row['engagement_rate_vs_organic']),
    cpm_vs_peers: nullableNumber(row['cpm_vs_peers']),
  };
}

function nullableNumber(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** A per-day sums row → date and derived metrics. */
export function toDailyTotals(row: Record<string, unknown>): DailyTotals {
  return { date: String(row['date']), ...deriveMetrics(sumsFromRow(row)) };
}
