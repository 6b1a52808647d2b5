import Router from '@koa/router';
import { z } from 'zod';
import { SecretBox } from '../../connectors/webhooks/secret-box.js';
import { AllowList } from '../../connectors/webhooks/ssrf-guard.js';
import { listDeliveries, retryDelivery } from '../../connectors/webhooks/delivery-log.service.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  rotateWebhookSecret,
  sendTestEvent,
  updateWebhook,
  type WebhookRules,
} from '../../connectors/webhooks/webhook.service.js';
import { takePage } from '../../data/paging.js';
import { defineRoute } from '../http/define-route.js';
import { ID_KEY, keysetPage } from '../http/keyset-page.js';
import { cursorParam, limitParam, pageOf } from '../http/pagination.js';
import type { RouteKit } from '../http/route-kit.js';
import { principalOf } from '../middleware/auth.middleware.js';
import { secretsNotReplayed } from '../middleware/idempotency.middleware.js';
import {
  DeliverySchema,
  EventsSchema,
  FilterSchema,
  WEBHOOK_PAYLOADS,
  WebhookRotatedSchema,
  WebhookSchema,
  WebhookWithSecretSchema,
} from './webhooks.schemas.js';

const IdParams = z.object({ id: z.string().regex(/^whk_[0-9a-z]{1,40}$/, 'a webhook id (whk_…)') });
const DeliveryParams = IdParams.extend({
  delivery_id: z.string().regex(/^dlv_[0-9a-z]{1,40}$/, 'a delivery id (dlv_…)'),
});
const PageQuery = z.object({ limit: limitParam, cursor: cursorParam });
/** A delivery's keyset: when it was created, then its id. */
const DELIVERY_KEY = ['string', 'string'] as const;
const DeliveriesQuery = PageQuery.extend({
  status: z.enum(['pending', 'sending', 'succeeded', 'failed']).optional().describe('Only deliveries in this state'),
});
const Url = z.string().min(1).max(2048).describe('https URL (private, loopback and link-local addresses are refused)');
const CreateBody = z.object({
  url: Url,
  events: EventsSchema,
  description: z.string().max(500).nullable().optional(),
  filter: FilterSchema.nullable().optional(),
});
const PatchBody = z.object({
  url: Url.optional(),
  events: EventsSchema.optional(),
  description: z.string().max(500).nullable().optional(),
  filter: FilterSchema.nullable().optional().describe('null removes the filter'),
  status: z
    .enum(['enabled', 'disabled'])
    .optional()
    .describe('enabled also clears a disabled reason and the failure streak'),
});
/** Answers that carry a signing secret must not be kept by any cache or proxy between us and the client. */
const NO_STORE_HEADER = {
  description: '`no-store`: the body carries a secret',
  schema: { type: 'string', enum: ['no-store'] },
};
const TestResult = z.object({ delivery_id: z.string(), event_id: z.string() });

/** The webhook endpoints; every operation is scoped to the caller's account. */
export function webhooksRoutes(kit: RouteKit): Router {
  const router = new Router();
  const allow = new AllowList(kit.config.webhooks.allowHosts);
  const secrets = SecretBox.fromConfig(kit.config);
  const rulesFor = async (plan: string): Promise<WebhookRules> => ({
    allow,
    secrets,
    maxSubscriptions: (await kit.plans.limits(plan)).webhookSubscriptions,
  });
  for (const hook of WEBHOOK_PAYLOADS) kit.openapi.addWebhook(hook);

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/webhooks',
      operationId: 'listWebhooks',
      tags: ['webhooks'],
      scope: 'read',
      summary: 'Your webhook subscriptions',
      query: PageQuery,
      responses: { 200: { description: 'A page of subscriptions', schema: pageOf(WebhookSchema) } },
    },
    async (ctx, { query }) => {
      const accountId = principalOf(ctx).accountId;
      ctx.body = await keysetPage(
        kit.cursors,
        query,
        { scope: `webhooks:${accountId}`, shape: ID_KEY },
        async (after, limit) =>
          takePage(await listWebhooks(kit.state, accountId, after?.[0] ?? null, limit + 1), limit, (w) => [w.id]),
      );
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/webhooks',
      operationId: 'createWebhook',
      tags: ['webhooks'],
      scope: 'webhooks:write',
      summary: 'Subscribe to events',
      body: CreateBody,
      idempotent: true,
      errors: ['limit_exceeded'],
      description:
        'Answers the signing `secret` once. Deliveries follow Standard Webhooks (`webhook-id`, `webhook-timestamp`, ' +
        '`webhook-signature`). The plan caps subscriptions (entry 5, enterprise 100): past it, 403 `limit_exceeded`. ' +
        'A replay of the same `Idempotency-Key` answers the first response without the secret (`secret` null, `secret_redacted` true): ' +
        'it is never kept; if you lost it, rotate it (`POST /v1/webhooks/{id}/rotate-secret`).',
      responses: {
        201: {
          description: 'Created',
          schema: WebhookWithSecretSchema,
          headers: { Location: { description: 'The new subscription' }, 'Cache-Control': NO_STORE_HEADER },
        },
      },
    },
    async (ctx, { body }) => {
      const p = principalOf(ctx);
      const created = await createWebhook(kit.state, p.accountId, body, await rulesFor(p.plan));
      ctx.status = 201;
      ctx.set('Location', `/v1/webhooks/${created.id}`);
      ctx.set('Cache-Control', 'no-store');
      secretsNotReplayed(ctx, ['secret']);
      ctx.body = created;
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/webhooks/{id}',
      operationId: 'getWebhook',
      tags: ['webhooks'],
      scope: 'read',
      summary: 'One subscription',
      params: IdParams,
      errors: ['not_found'],
      responses: { 200: { description: 'The subscription', schema: WebhookSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = await getWebhook(kit.state, principalOf(ctx).accountId, params.id);
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'patch',
      path: '/v1/webhooks/{id}',
      operationId: 'updateWebhook',
      tags: ['webhooks'],
      scope: 'webhooks:write',
      summary: 'Change url, events, filter, description or status',
      params: IdParams,
      body: PatchBody,
      errors: ['not_found'],
      responses: { 200: { description: 'The updated subscription', schema: WebhookSchema } },
    },
    async (ctx, { params, body }) => {
      const p = principalOf(ctx);
      ctx.body = await updateWebhook(kit.state, p.accountId, params.id, body, await rulesFor(p.plan));
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'delete',
      path: '/v1/webhooks/{id}',
      operationId: 'deleteWebhook',
      tags: ['webhooks'],
      scope: 'webhooks:write',
      summary: 'Delete a subscription and its delivery log',
      params: IdParams,
      errors: ['not_found'],
      responses: { 204: { description: 'Deleted' } },
    },
    async (ctx, { params }) => {
      await deleteWebhook(kit.state, principalOf(ctx).accountId, params.id);
      ctx.status = 204;
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/webhooks/{id}/rotate-secret',
      operationId: 'rotateWebhookSecret',
      tags: ['webhooks'],
      scope: 'webhooks:write',
      summary: 'Replace the signing secret',
      params: IdParams,
      errors: ['not_found'],
      description:
        'Answers the new secret once. For 24 hours both secrets sign (two signatures, space separated, in `webhook-signature`).',
      responses: {
        200: {
          description: 'The subscription with its new secret',
          schema: WebhookRotatedSchema,
          headers: { 'Cache-Control': NO_STORE_HEADER },
        },
      },
    },
    async (ctx, { params }) => {
      const rotated = await rotateWebhookSecret(kit.state, principalOf(ctx).accountId, params.id, secrets);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = rotated;
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/webhooks/{id}/test',
      operationId: 'testWebhook',
      tags: ['webhooks'],
      scope: 'webhooks:write',
      summary: 'Send a webhook.test event to this subscription',
      params: IdParams,
      errors: ['not_found', 'conflict'],
      responses: { 202: { description: 'Queued; follow it in the delivery log', schema: TestResult } },
    },
    async (ctx, { params }) => {
      ctx.status = 202;
      ctx.body = await sendTestEvent(kit.state, principalOf(ctx).accountId, params.id);
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/webhooks/{id}/deliveries',
      operationId: 'listWebhookDeliveries',
      tags: ['webhooks'],
      scope: 'read',
      summary: 'The delivery log, newest first',
      params: IdParams,
      query: DeliveriesQuery,
      errors: ['not_found'],
      description: 'Each delivery with its state, next retry and every attempt (status code, latency, error).',
      responses: { 200: { description: 'A page of deliveries', schema: pageOf(DeliverySchema) } },
    },
    async (ctx, { params, query }) => {
      const accountId = principalOf(ctx).accountId;
      const keyset = { scope: `deliveries:${accountId}:${params.id}:${query.status ?? ''}`, shape: DELIVERY_KEY };
      ctx.body = await keysetPage(kit.cursors, query, keyset, async (after, limit) => {
        const rows = await listDeliveries(kit.state, accountId, params.id, {
          after: after && { createdAt: after[0], id: after[1] },
          status: query.status ?? null,
          limit: limit + 1,
        });
        return takePage(
          rows,
          limit,
          (r) => [r.key.createdAt, r.key.id],
          (r) => r.entry,
        );
      });
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/webhooks/{id}/deliveries/{delivery_id}/retry',
      operationId: 'retryWebhookDelivery',
      tags: ['webhooks'],
      scope: 'webhooks:write',
      summary: 'Send a delivery again now (same webhook-id)',
      params: DeliveryParams,
      errors: ['not_found', 'conflict'],
      responses: { 202: { description: 'Queued again', schema: DeliverySchema } },
    },
    async (ctx, { params }) => {
      ctx.status = 202;
      ctx.body = await retryDelivery(kit.state, principalOf(ctx).accountId, params.id, params.delivery_id);
    },
  );

  return router;
}
