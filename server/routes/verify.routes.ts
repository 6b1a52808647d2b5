import Router from '@koa/router';
import { z } from 'zod';
import {
  handleParam,
  getVerification,
  listVerifications,
  verifyCreator,
} from '../../data/authenticity/verify.service.js';
import { NotFoundError } from '../../data/errors.js';
import { takePage } from '../../data/paging.js';
import { PLATFORMS } from '../../data/reference/taxonomy.js';
import { timestampSchema } from '../../data/timestamps.js';
import { fingerprint } from '../http/cursor.js';
import { defineRoute } from '../http/define-route.js';
import { ID_KEY, keysetPage } from '../http/keyset-page.js';
import { cursorParam, limitParam, pageOf } from '../http/pagination.js';
import type { RouteKit } from '../http/route-kit.js';
import { principalOf } from '../middleware/auth.middleware.js';

const Status = z.enum(['pass', 'warn', 'fail']);
const SignalSchema = z.object({
  code: z.string().describe('Stable signal code, e.g. follower_spikes, engagement_rate'),
  label: z.string(),
  value: z.number().nullable().describe("The creator's value (percent for rates and shares); null when not computable"),
  expected: z.string().describe('The normal range among peers'),
  status: Status,
  detail: z.string(),
  penalty: z.number().describe('Score points this signal took off, from the score of a creator with nothing unusual'),
  contribution: z
    .number()
    .optional()
    .describe(
      "This signal's additive term of the calibrated fraud logit (0 when normal or not evaluated); absent on checks stored by auth-1.0.0",
    ),
  available: z
    .boolean()
    .optional()
    .describe(
      'Whether the data to evaluate it exists; missing data contributes 0 and lowers confidence; absent on checks stored by auth-1.0.0',
    ),
  dates: z
    .array(z.object({ date: z.string(), gain_pct: z.number(), explained: z.boolean() }))
    .optional()
    .describe(
      'follower_spikes: the one-day jumps, largest first, and whether a post explains each; follower_jumps: the unexplained residual jumps',
    ),
});
const Pct = z.number().nullable();
const VerificationSchema = z.object({
  id: z.string().describe('ver_… — read it back with GET /v1/verifications/{id}'),
  handle: z.string(),
  platform: z.enum(PLATFORMS),
  authenticity_score: z
    .number()
    .min(0)
    .max(100)
    .describe('0–100, higher is more authentic: 100 × (1 − fraud_probability)'),
  fraud_probability: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe(
      'Calibrated probability that the followers or engagement are not earned; always present on new checks, absent on checks stored by auth-1.0.0',
    ),
  fake_followers_pct: z
    .number()
    .min(0)
    .max(100)
    .describe(
      'Expected share of fake followers: fraud_probability × the fake share such an account would carry (docs/authenticity.md)',
    ),
  verdict: z
    .enum(['authentic', 'questionable', 'suspicious'])
    .describe('authentic ≥ 80, questionable 60–79, suspicious < 60'),
  confidence: z
    .enum(['high', 'medium', 'low'])
    .describe(
      'low under 30 days of history or 6 posts, or when the verdict is held at questionable for lack of direct evidence; high from 180 days and 12 posts with audience data',
    ),
  confidence_reason: z
    .string()
    .optional()
    .describe(
      'Why the confidence is what it is; for a verdict held at questionable, the signals that fired and that none of them is direct evidence (docs/authenticity.md); absent on checks stored before auth-5.0',
    ),
  signals: z.array(SignalSchema),
  audience_quality: z.object({ real_pct: Pct, suspicious_pct: Pct, mass_followers_pct: Pct, influencers_pct: Pct }),
  data_used: z.object({ history_days: z.number().int(), posts: z.number().int() }),
  model_version: z.string().describe('The authenticity model that made this check (cds model list)'),
  checked_at: timestampSchema('When the check ran'),
});

const VerifyBody = z.object({
  handle: z.string().min(1).max(101).describe('@name, name, any case'),
  platform: z.enum(PLATFORMS).optional(),
});
const IdParams = z.object({ id: z.string().regex(/^ver_[0-9a-z]{1,40}$/, 'a verification id (ver_…)') });
const ListQuery = z.object({
  handle: z.string().min(1).max(101).optional().describe('Only checks of this handle'),
  platform: z.enum(PLATFORMS).optional(),
  limit: limitParam,
  cursor: cursorParam,
});

/** POST /v1/verify and the stored verifications. */
export function verifyRoutes(kit: RouteKit): Router {
  const router = new Router();
  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/verify',
      operationId: 'verifyCreator',
      tags: ['verify'],
      scope: 'verify',
      summary: 'Check a creator for fake followers and engagement from current data',
      description:
        'Recomputes the features of one creator from current data, scores them with the active authenticity model ' +
        '(docs/authenticity.md), stores the result and answers it.',
      body: VerifyBody,
      errors: ['creator_not_found', 'ambiguous_handle'],
      responses: { 200: { description: 'The verification', schema: VerificationSchema } },
    },
    async (ctx, { body }) => {
      ctx.body = await verifyCreator(
        kit.store,
        kit.state,
        principalOf(ctx).accountId,
        body.handle,
        body.platform ?? null,
      );
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/verifications/{id}',
      operationId: 'getVerification',
      tags: ['verify'],
      scope: 'read',
      summary: 'One of your past verifications',
      params: IdParams,
      errors: ['not_found'],
      responses: { 200: { description: 'The verification', schema: VerificationSchema } },
    },
    async (ctx, { params }) => {
      const found = await getVerification(kit.state, principalOf(ctx).accountId, params.id);
      if (!found) throw new NotFoundError(`no verification ${params.id}`);
      ctx.body = found;
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/verifications',
      operationId: 'listVerifications',
      tags: ['verify'],
      scope: 'read',
      summary: 'Your past verifications, newest first',
      query: ListQuery,
      responses: { 200: { description: 'A page', schema: pageOf(VerificationSchema) } },
    },
    async (ctx, { query }) => {
      const accountId = principalOf(ctx).accountId;
      const handle = query.handle ? handleParam(query.handle) : null;
      const platform = query.platform ?? null;
      const scope = `verifications:${accountId}:${fingerprint([handle, platform])}`;
      ctx.body = await keysetPage(kit.cursors, query, { scope, shape: ID_KEY }, async (after, limit) => {
        const rows = await listVerifications(kit.state, accountId, {
          handle,
          platform,
          before: after?.[0] ?? null,
          limit: limit + 1,
        });
        return takePage(rows, limit, (v) => [v.id]);
      });
    },
  );
  return router;
}
