import { quoteIdent } from '../sql.js';
import type { Store } from '../store.js';
import { COUNT_METRICS, MONEY_METRICS } from './campaign-metrics.js';
import { timestampSql } from '../timestamps.js';

/** A `campaigns` row with dates and timestamps as strings. */
export interface CampaignRow extends Record<string, unknown> {
  campaign_id: string;
  name: string;
  brand: string | null;
  status: string;
  starts_on: string | null;
  ends_on: string | null;
  currency: string;
  budget: number | null;
  updated_at: string;
}

/** An inclusive date window; either end may be open. */
export interface DateWindow {
  from: string | null;
  to: string | null;
}

const CAMPAIGN_SELECT = `SELECT campaign_id, name, brand, status, strftime(starts_on, '%Y-%m-%d') AS starts_on,
    strftime(ends_on, '%Y-%m-%d') AS ends_on, currency, budget, ${timestampSql('updated_at')} AS updated_at
  FROM campaigns`;

/** Integer sums stay BIGINT (DuckDB widens SUM to HUGEINT); money sums stay DOUBLE. */
const SUMS = [
  ...COUNT_METRICS.map((m) => `coalesce(sum(${quoteIdent(m)}), 0)::BIGINT AS ${quoteIdent(m)}`),
  ...MONEY_METRICS.map((m) => `coalesce(sum(${quoteIdent(m)}), 0)::DOUBLE AS ${quoteIdent(m)}`),
].join(', ');

const IN_WINDOW = '(?::DATE IS NULL OR date >= ?::DATE) AND (?::DATE IS NULL OR date <= ?::DATE)';
const windowParams = (w: DateWindow) => [w.from, w.from, w.to, w.to];

/** One page of the account's campaigns in id order, optionally only some statuses. */
export function selectCampaigns(
  store: Store,
  accountId: string,
  statuses: readonly string[] | null,
  afterId: string | null,
  limit: number,
): Promise<CampaignRow[]> {
  return store.all<CampaignRow>(
    `${CAMPAIGN_SELECT}
    WHERE account_id = ? AND (?::BOOLEAN OR list_contains(?::VARCHAR[], status)) AND (?::VARCHAR IS NULL OR campaign_id > ?)
    ORDER BY campaign_id LIMIT ?`,
    [accountId, statuses === null, statuses ?? [''], afterId, afterId, limit],
  );
}

/** The campaign if it belongs to the account. */
export function selectCampaign(store: Store, accountId: string, campaignId: string): Promise<CampaignRow | undefined> {
  return store.one<CampaignRow>(`${CAMPAIGN_SELECT} WHERE account_id = ? AND campaign_id = ?`, [accountId, campaignId]);
}

/** Metric sums per campaign over the window (campaigns without rows are absent). */
export function sumsByCampaign(
  store: Store,
  campaignIds: readonly string[],
  w: DateWindow,
): Promise<Array<Record<string, unknown>>> {
  if (campaignIds.length === 0) return Promise.resolve([]);
  return store.all(
    `SELECT campaign_id, ${SUMS} FROM campaign_metrics
    WHERE campaign_id IN (SELECT unnest(?::VARCHAR[])) AND ${IN_WINDOW} GROUP BY campaign_id`,
    [campaignIds, ...windowParams(w)],
  );
}

/** A creator's CPM is compared with its peers' only when at least this many of them have campaign spend. */
export const PEER_CPM_MIN = 5;
/** `c` (creators) is in peer group `g` (peer_groups): its platform, niche and follower band. */
const IN_PEER_GROUP =
  'g.platform = c.platform AND g.niche = c.niche AND c.followers >= g.followers_from AND (g.followers_to IS NULL OR c.followers < g.followers_to)';

/**
 * Metric sums per creator over the window: every creator on the campaign (zero
 * when it has no rows in the window) and any creator with metric rows. Each
 * carries `engagement_rate_vs_organic`: its sponsored posts' engagement rate over
 * its organic posts' (from its stored posts, whatever the window; null without
 * either kind or with no organic engagement), and `cpm_vs_peers`: its CPM on the
 * campaign over the window against the median CPM of its peer group's other
 * creators (docs/benchmarks.md) over all their recorded campaigns in the same
 * currency, whatever the window (null without spend and impressions, or with
 * fewer than PEER_CPM_MIN such peers).
 */
export function sumsByCreator(
  store: Store,
  campaignId: string,
  w: DateWindow,
): Promise<Array<Record<string, unknown>>> {
  return store.all(
    `WITH sums AS (
      SELECT creator_id, ${SUMS} FROM campaign_metrics WHERE campaign_id = ? AND ${IN_WINDOW} GROUP BY creator_id),
    members AS (
      SELECT creator_id FROM campaign_creators WHERE campaign_id = ?
      UNION SELECT DISTINCT creator_id FROM campaign_metrics WHERE campaign_id = ?),
    cpm AS (
      SELECT m.creator_id, sum(m.spend) * 1000.0 / sum(m.impressions) AS cpm
      FROM campaign_metrics m JOIN campaigns cp ON cp.campaign_id = m.campaign_id
      WHERE cp.currency = (SELECT currency FROM campaigns WHERE campaign_id = ?)
      GROUP BY m.creator_id HAVING sum(m.impressions) > 0 AND sum(m.spend) > 0),
    -- peer groups of the campaign's creators and of the paid creators only: the work follows the campaign data, not the store
    mine AS (
      SELECT c.creator_id, g.platform, g.niche, g.followers_from
      FROM members JOIN creators c ON c.creator_id = members.creator_id JOIN peer_groups g ON ${IN_PEER_GROUP}),
    paid AS (
      SELECT c.creator_id, cpm.cpm, g.platform, g.niche, g.followers_from
      FROM cpm JOIN creators c ON c.creator_id = cpm.creator_id JOIN peer_groups g ON ${IN_PEER_GROUP}),
    peer_cpm AS (
      SELECT m.creator_id, median(p.cpm) AS cpm
      FROM mine m JOIN paid p ON p.platform = m.platform AND p.niche = m.niche AND p.followers_from = m.followers_from
        AND p.creator_id <> m.creator_id
      GROUP BY m.creator_id HAVING count(*) >= ${PEER_CPM_MIN})
    SELECT c.handle, c.platform, sums.* EXCLUDE (creator_id),
      CASE WHEN c.engagement_rate_organic > 0 THEN round(c.engagement_rate_sponsored / c.engagement_rate_organic, 4) END
        AS engagement_rate_vs_organic,
      CASE WHEN sums.impressions > 0 AND sums.spend > 0 AND peer_cpm.cpm > 0
        THEN round(sums.spend * 1000.0 / sums.impressions / peer_cpm.cpm, 4) END AS cpm_vs_peers
    FROM members JOIN creators c ON c.creator_id = members.creator_id
    LEFT JOIN sums ON sums.creator_id = members.creator_id
    LEFT JOIN peer_cpm ON peer_cpm.creator_id = members.creator_id
    ORDER BY coalesce(sums.impressions, 0) DESC, c.handle, c.platform`,
    [campaignId, ...windowParams(w), campaignId, campaignId, campaignId],
  );
}

/** Metric sums per day over the window, days with rows only, in date order. */
export function sumsByDay(store: Store, campaignId: string, w: DateWindow): Promise<Array<Record<string, unknown>>> {
  return store.all(
    `SELECT strftime(date, '%Y-%m-%d') AS date, ${SUMS} FROM campaign_metrics
    WHERE campaign_id = ? AND ${IN_WINDOW} GROUP BY date ORDER BY date`,
    [campaignId, ...windowParams(w)],
  );
}
