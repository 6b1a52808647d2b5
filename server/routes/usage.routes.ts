import Router from '@koa/router';
import { z } from 'zod';
import {
  MAX_BUCKETS,
  OVERLAP_OPERATION,
  resolveUsageRange,
  usageReport,
  VERIFY_OPERATION,
} from '../../data/usage/usage.service.js';
import { USAGE_FLUSH_MS } from '../../data/usage/usage-counter.js';
import { timestampSchema } from '../../data/timestamps.js';
import { defineRoute } from '../http/define-route.js';
import type { RouteKit } from '../http/route-kit.js';
import { principalOf } from '../middleware/auth.middleware.js';

const count = z.number().int();
const classes = { '2xx': count, '3xx': count, '4xx': count, '5xx': count };
const Counts = z.object({
  requests: count,
  ...classes,
  rate_limited: count.describe('Requests refused with 429'),
  verify_calls: count.describe(`Successful ${VERIFY_OPERATION} calls (POST /v1/verify)`),
  audience_overlaps: count.describe(`Successful ${OVERLAP_OPERATION} calls (POST /v1/audience-overlap)`),
  export_rows: count.describe('Rows of exports that succeeded'),
  export_bytes: count.describe('Bytes of exports that succeeded'),
  contact_reveals: count.describe(
    'Contact details revealed (GET /v1/creators/{handle}/contacts), from the reveals audit log',
  ),
});
const UsageSchema = z.object({
  from: timestampSchema('Start of the range (inclusive, on a bucket boundary)'),
  to: timestampSchema('End of the range (exclusive, on a bucket boundary)'),
  granularity: z.enum(['day', 'hour']),
  plan: z.object({
    name: z.string(),
    limits: z.object({
      requests_per_minute: count,
      export_rows: count,
      webhook_subscriptions: count,
      lists: count.nullable().describe('null: unlimited'),
      creators_per_list: count,
      exports_in_flight: count,
      export_storage_bytes: count,
    }),
  }),
  totals: Counts,
  buckets: z
    .array(Counts.extend({ start: timestampSchema("The bucket's start") }))
    .describe('Every bucket of the range, oldest first, zeros included'),
  by_key: z
    .array(z.object({ key_id: z.string(), name: z.string().nullable(), requests: count, rate_limited: count }))
    .describe('Keys that made requests in the range, busiest first'),
  by_operation: z
    .array(z.object({ operation: z.string().describe('The OpenAPI operationId'), requests: count, ...classes }))
    .describe('Operations called in the range, busiest first'),
});
const When = z.string().min(10).max(40);
const UsageQuery = z.object({
  from: When.optional().describe('A date (2026-05-01) or RFC 3339 time; default: 30 days (hour: 24 hours) before `to`'),
  to: When.optional().describe(
    'A date (that whole day included) or RFC 3339 time; default: the end of the current day (hour)',
  ),
  granularity: z
    .enum(['day', 'hour'])
    .default('day')
    .meta({ default: 'day' })
    .describe(`Bucket size: day (at most ${MAX_BUCKETS.day} buckets) or hour (at most ${MAX_BUCKETS.hour})`),
});

/** GET /v1/usage: the account's API usage over a range, with its plan's limits. */
export function usageRoutes(kit: RouteKit): Router {
  const router = new Router();
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/usage',
      operationId: 'getUsage',
      tags: ['account'],
      scope: 'read',
      summary:
        "Your API usage: requests per day or hour by status class, per key and per operation, with your plan's limits",
      description:
        'Every authenticated request counts (429s and 404s included), by key, operation, minute and status class. ' +
        `Counts are kept in memory and written every ${USAGE_FLUSH_MS / 1000} s, so the last seconds may not show yet; ` +
        'they are kept for the retention period (CDS_RETENTION_DAYS, default 30 days). Times are UTC. ' +
        'A range longer than the granularity allows is a 400 naming `from`.',
      query: UsageQuery,
      responses: { 200: { description: 'The usage', schema: UsageSchema } },
    },
    async (ctx, { query }) => {
      const p = principalOf(ctx);
      const range = resolveUsageRange(query);
      const plan = await kit.plans.get(p.plan);
      if (!plan) throw new Error(`plan ${p.plan} vanished after authentication`);
      ctx.body = (await usageReport(kit.state, p.accountId, plan, range)) satisfies z.infer<typeof UsageSchema>;
    },
  );
  return router;
}
