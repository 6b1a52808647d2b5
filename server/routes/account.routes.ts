import Router from '@koa/router';
import { z } from 'zod';
import { defineRoute } from '../http/define-route.js';
import type { RouteKit } from '../http/route-kit.js';
import { principalOf } from '../middleware/auth.middleware.js';

const AccountSchema = z.object({
  account_id: z.string(),
  name: z.string(),
  plan: z.string().describe('A plan from the plans table (`cds plans list`), e.g. entry or enterprise'),
  limits: z.object({
    requests_per_minute: z.number().int(),
    export_rows: z.number().int(),
    webhook_subscriptions: z.number().int(),
    lists: z.number().int().nullable().describe('null: unlimited'),
    creators_per_list: z.number().int(),
    exports_in_flight: z.number().int().describe('Exports queued or running at once'),
    export_storage_bytes: z.number().int().describe('Bytes of unexpired export files the account may keep'),
  }),
  usage: z.object({
    window: z.literal('minute'),
    requests: z
      .number()
      .int()
      .describe(
        'Requests the per-minute allowance still holds against the account (limit − remaining), this one included',
      ),
    remaining: z.number().int().describe('Requests that would pass if sent now, back to back'),
    resets_in_seconds: z
      .number()
      .int()
      .describe('Seconds until the allowance is full again; with none remaining, until the next request passes'),
  }),
  key: z.object({ key_id: z.string(), scopes: z.array(z.string()) }),
});

/** GET /v1/account: the caller's account, plan, limits (the plans table) and current usage. */
export function accountRoutes(kit: RouteKit): Router {
  const router = new Router();
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/account',
      operationId: 'getAccount',
      tags: ['account'],
      summary: 'Your account, its plan, limits and current rate-limit usage',
      responses: { 200: { description: 'The account', schema: AccountSchema } },
    },
    async (ctx) => {
      const p = principalOf(ctx);
      const limits = await kit.plans.limits(p.plan);
      const usage = await kit.rateLimiter.peek(p.accountId, limits.requestsPerMinute);
      ctx.body = {
        account_id: p.accountId,
        name: p.accountName,
        plan: p.plan,
        limits: {
          requests_per_minute: limits.requestsPerMinute,
          export_rows: limits.exportRows,
          webhook_subscriptions: limits.webhookSubscriptions,
          lists: limits.lists,
          creators_per_list: limits.creatorsPerList,
          exports_in_flight: limits.exportsInFlight,
          export_storage_bytes: limits.exportStorageBytes,
        },
        usage: {
          window: 'minute',
          requests: usage.used,
          remaining: usage.remaining,
          resets_in_seconds: usage.resetSeconds,
        },
        key: { key_id: p.keyId, scopes: [...p.scopes].sort() },
      } satisfies z.infer<typeof AccountSchema>;
    },
  );
  return router;
}
