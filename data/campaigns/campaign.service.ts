import { NotFoundError, ValidationError } from '../errors.js';
import type { Store } from '../store.js';
import {
  toCampaignSummary,
  toCreatorTotals,
  toDailyTotals,
  type CampaignDetail,
  type CampaignSummary,
} from './campaign.mapper.js';
import * as q from './campaign.queries.js';

/** The optional `from`/`to` window (inclusive YYYY-MM-DD) metrics are narrowed to. */
export type { DateWindow } from './campaign.queries.js';

/** A window must not run backwards: `from` after `to` is a 400 naming `from`. */
export function checkWindow(w: q.DateWindow): void {
  if (w.from !== null && w.to !== null && w.from > w.to) {
    throw ValidationError.param('from', `must be on or before to (${w.to})`);
  }
}

/**
 * One page of the account's campaigns in id order with their metrics over the
 * window; fetch `limit + 1` to know whether more follow. The sums of the whole
 * page come from one grouped query.
 */
export async function listCampaigns(
  store: Store,
  accountId: string,
  options: { statuses: readonly string[] | null; afterId: string | null; limit: number; window: q.DateWindow },
): Promise<CampaignSummary[]> {
  checkWindow(options.window);
  const rows = await q.selectCampaigns(store, accountId, options.statuses, options.afterId, options.limit);
  const sums = await q.sumsByCampaign(
    store,
    rows.map((r) => r.campaign_id),
    options.window,
  );
  const byId = new Map(sums.map((s) => [String(s['campaign_id']), s]));
  return rows.map((r) => toCampaignSummary(r, byId.get(r.campaign_id)));
}

/**
 * The account's campaign with totals, per-creator totals and per-day totals,
 * all over the same window (so the creators and the days each add up to the
 * totals). Another account's campaign is a 404, like a missing one.
 */
export async function getCampaign(
  store: Store,
  accountId: string,
  campaignId: string,
  window: q.DateWindow,
): Promise<CampaignDetail> {
  checkWindow(window);
  const row = await q.selectCampaign(store, accountId, campaignId);
  if (!row) throw new NotFoundError(`no campaign ${campaignId} in your account`);
  const [totals, creators, daily] = await Promise.all([
    q.sumsByCampaign(store, [campaignId], window),
    q.sumsByCreator(store, campaignId, window),
    q.sumsByDay(store, campaignId, window),
  ]);
  return {
    ...toCampaignSummary(row, totals[0]),
    creators: creators.map(toCreatorTotals),
    daily: daily.map(toDailyTotals),
  };
}
