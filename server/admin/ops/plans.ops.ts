import { z } from 'zod';
import { listAccountViews, listPlanViews, setAccountPlan, setPlan } from '../../../data/plans/plan-admin.service.js';
import { defineOp } from '../admin-op.js';
import { userErrors } from './keys.ops.js';

const Limit = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const plansList = defineOp({
  name: 'plans.list',
  args: z.object({}),
  run: (ctx) => listPlanViews(ctx.state),
});

export const plansSet = defineOp({
  name: 'plans.set',
  args: z.object({
    plan: z.string().min(1).max(40),
    limits: z.object({
      requests_per_minute: Limit.optional(),
      export_rows: Limit.optional(),
      webhook_subscriptions: Limit.optional(),
      lists: Limit.nullable().optional(),
      creators_per_list: Limit.optional(),
      exports_in_flight: Limit.optional(),
      export_storage_bytes: Limit.optional(),
    }),
    scopes: z.array(z.string()).optional(),
  }),
  run: (ctx, args) =>
    userErrors(() =>
      setPlan(ctx.state, args.plan, {
        limits: Object.fromEntries(Object.entries(args.limits).filter(([, v]) => v !== undefined)),
        scopes: args.scopes,
      }),
    ),
});

export const accountsList = defineOp({
  name: 'accounts.list',
  args: z.object({}),
  run: (ctx) => listAccountViews(ctx.state),
});

export const accountsSetPlan = defineOp({
  name: 'accounts.set-plan',
  args: z.object({ account: z.string().min(1).max(200), plan: z.string().min(1).max(40) }),
  run: (ctx, args) => userErrors(() => setAccountPlan(ctx.state, args.account, args.plan)),
});

/** The plan and account operations (`cds plans …`, `cds accounts …`). */
export const planOps = [plansList, plansSet, accountsList, accountsSetPlan];
