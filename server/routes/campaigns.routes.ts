import Router from '@koa/router';
import { z } from 'zod';
import { COUNT_METRICS, MONEY_METRICS } from '../../data/campaigns/campaign-metrics.js';
import { CAMPAIGN_STATUSES } from '../../data/campaigns/campaign.mapper.js';
import { getCampaign, listCampaigns } from '../../data/campaigns/campaign.service.js';
import { takePage } from '../../data/paging.js';
import { timestampSchema } from '../../data/timestamps.js';
import { fingerprint } from '../http/cursor.js';
import { defineRoute } from '../http/define-route.js';
import { ID_KEY, keysetPage } from '../http/keyset-page.js';
import { cursorParam, limitParam, pageOf } from '../http/pagination.js';
import { csvEnum, dateParam } from '../http/query-params.js';
import type { RouteKit } from '../http/route-kit.js';
import { principalOf } from '../middleware/auth.middleware.js';

const ratio = (what: string) => z.number().nullable().describe(`${what}; null when its denominator is 0`);
const MetricsSchema = z
  .object({
    ...(Object.fromEntries(COUNT_METRICS.map((m) => [m, z.number().int()])) as Record<
      (typeof COUNT_METRICS)[number],
      z.ZodNumber
    >),
    ...(Object.fromEntries(MONEY_METRICS.map((m) => [m, z.number().describe('In the campaign currency')])) as Record<
      (typeof MONEY_METRICS)[number],
      z.ZodNumber
    >),
    engagements: z.number().int().describe('likes + comments + shares + saves'),
    engagement_rate: ratio('engagements / impressions × 100 (percent)'),
    ctr: ratio('clicks / impressions × 100 (percent)'),
    cpm: ratio('spend / impressions × 1000'),
    cpc: ratio('spend / clicks'),
    cpe: ratio('spend / engagements'),
    roas: ratio('revenue / spend (a multiple)'),
  })
  .describe('Sums of the daily per-creator metrics; ratios are computed from those sums, never averaged');
const CampaignSchema = z.object({
  id: z.string().describe('cmp_…'),
  name: z.string(),
  brand: z.string().nullable(),
  status: z.enum(CAMPAIGN_STATUSES),
  starts_on: z.string().nullable().describe('YYYY-MM-DD'),
  ends_on: z.string().nullable().describe('YYYY-MM-DD'),
  currency: z.string().describe('ISO 4217'),
  budget: z.number().nullable(),
  metrics: MetricsSchema,
  updated_at: timestampSchema('When the campaign last changed'),
});
const CampaignDetailSchema = CampaignSchema.extend({
  creators: z
    .array(
      z
        .object({ handle: z.string(), platform: z.string() })
        .extend(MetricsSchema.shape)
        .extend({
          engagement_rate_vs_organic: z
            .number()
            .nullable()
            .describe(
              "The creator's sponsored posts' engagement rate over its organic posts' " +
                '(a multiple: 1.2 is a fifth higher), from its stored posts whatever the window; null without sponsored or organic engagement',
            ),
          cpm_vs_peers: z
            .number()
            .nullable()
            .describe(
              "The creator's CPM on this campaign over the window (spend per 1,000 impressions) over the median CPM of the other " +
                'creators of its peer group (platform, niche, follower band: docs/benchmarks.md) across all recorded campaigns in ' +
                'the same currency (a multiple: 0.8 is a fifth cheaper); null without spend and impressions, or with fewer than 5 such peers',
            ),
        }),
    )
    .describe('Per-creator totals over the same window, most impressions first'),
  daily: z
    .array(z.object({ date: z.string().describe('YYYY-MM-DD') }).extend(MetricsSchema.shape))
    .describe('Per-day totals over all creators, days with data only, oldest first'),
});

const Window = {
  from: dateParam.optional().describe('First day (YYYY-MM-DD, inclusive) metrics count from'),
  to: dateParam.optional().describe('Last day (YYYY-MM-DD, inclusive) metrics count to; from ≤ to'),
};
const ListQuery = z.object({
  status: csvEnum(CAMPAIGN_STATUSES).optional(),
  ...Window,
  limit: limitParam,
  cursor: cursorParam,
});
const DetailQuery = z.object(Window);
const IdParams = z.object({ id: z.string().regex(/^cmp_[0-9A-Za-z_-]{1,64}$/, 'a campaign id (cmp_…)') });

/** GET /v1/campaigns and GET /v1/campaigns/{id}, scoped to the caller's account. */
export function campaignsRoutes(kit: RouteKit): Router {
  const router = new Router();

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/campaigns',
      operationId: 'listCampaigns',
      tags: ['campaigns'],
      scope: 'read',
      summary: 'Your campaigns with their totals',
      query: ListQuery,
      description:
        'In id order. Each item carries `metrics` over `from`/`to` (all days when absent); ' +
        'the per-creator and per-day breakdowns are on GET /v1/campaigns/{id}.',
      responses: { 200: { description: 'A page of campaigns', schema: pageOf(CampaignSchema) } },
    },
    async (ctx, { query }) => {
      const accountId = principalOf(ctx).accountId;
      const statuses = query.status ?? null;
      const window = { from: query.from ?? null, to: query.to ?? null };
      const scope = `campaigns:${accountId}:${fingerprint({ statuses, window })}`;
      ctx.body = await keysetPage(kit.cursors, query, { scope, shape: ID_KEY }, async (after, limit) => {
        const rows = await listCampaigns(kit.store, accountId, {
          statuses,
          afterId: after?.[0] ?? null,
          limit: limit + 1,
          window,
        });
        return takePage(rows, limit, (c) => [c.id]);
      });
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/campaigns/{id}',
      operationId: 'getCampaign',
      tags: ['campaigns'],
      scope: 'read',
      summary: 'A campaign with totals, per-creator totals and per-day totals',
      params: IdParams,
      query: DetailQuery,
      errors: ['not_found'],
      description:
        '`from`/`to` narrow `metrics`, `daily` and the per-creator totals alike, so the creators and the days ' +
        'each add up to `metrics`. A campaign of another account is a 404.',
      responses: { 200: { description: 'The campaign', schema: CampaignDetailSchema } },
    },
    async (ctx, { params, query }) => {
      const window = { from: query.from ?? null, to: query.to ?? null };
      ctx.body = await getCampaign(kit.store, principalOf(ctx).accountId, params.id, window);
    },
  );
  return router;
}
