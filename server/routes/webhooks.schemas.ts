import { z } from 'zod';
import { timestampSchema } from '../../data/timestamps.js';
import { SUBSCRIBABLE_EVENTS } from '../../connectors/webhooks/webhook.mapper.js';
import { CreatorItemSchema } from './creators.schemas.js';
import { CREATOR_DIFF_FIELDS } from '../../pipelines/engine/creator-events.js';

export const FilterSchema = z
  .strictObject({
    list_ids: z
      .array(z.string().regex(/^lst_[0-9a-z]{1,40}$/, 'a list id (lst_…)'))
      .max(100)
      .optional()
      .describe('creator.updated only: creators on any of these lists of your account'),
    handles: z
      .array(z.string().min(1).max(101))
      .max(1000)
      .optional()
      .describe('creator.updated only: these handles (`@name`), on any platform'),
    campaign_ids: z
      .array(z.string().min(1).max(100))
      .max(100)
      .optional()
      .describe('campaign.metrics_updated only: these campaigns'),
  })
  .describe(
    'Narrows creator.updated (list_ids OR handles match) and campaign.metrics_updated (campaign_ids). Unset: everything.',
  );

export const EventsSchema = z
  .array(z.enum([...SUBSCRIBABLE_EVENTS, '*']))
  .min(1)
  .max(10)
  .describe('Event types to receive, or ["*"] for all');

export const WebhookSchema = z.object({
  id: z.string().describe('whk_…'),
  url: z.string(),
  events: z.array(z.string()),
  description: z.string().nullable(),
  filter: FilterSchema.nullable(),
  status: z.enum(['enabled', 'disabled']),
  disabled_reason: z
    .string()
    .nullable()
    .describe('Why it was disabled: 410 from the receiver, 5 days of failures, or the API'),
  previous_secret_expires_at: timestampSchema('After a rotation: until when the old secret also signs').nullable(),
  created_at: timestampSchema('When the subscription was created'),
  updated_at: timestampSchema('When it last changed'),
});

/** Rotate-secret's answer: the new secret, always present. */
export const WebhookRotatedSchema = WebhookSchema.extend({
  secret: z.string().describe('The new `whsec_…`, shown only in this response'),
});

/** Create's answer; an Idempotency-Key replay has the secret redacted. */
export const WebhookWithSecretSchema = WebhookSchema.extend({
  secret: z
    .string()
    .nullable()
    .describe(
      '`whsec_…`, shown only in this response: verify signatures with it. ' +
        'null in an Idempotency-Key replay of a create (see secret_redacted)',
    ),
  secret_redacted: z
    .literal(true)
    .optional()
    .describe(
      'Present (true) in an Idempotency-Key replay of a create: the secret is shown once and never stored for replays',
    ),
});

export const AttemptSchema = z.object({
  attempt: z.number().int(),
  started_at: timestampSchema('When the attempt started'),
  status_code: z
    .number()
    .int()
    .nullable()
    .describe("The receiver's status; null when no answer (timeout, network error, refused)"),
  latency_ms: z.number().nullable(),
  error: z.string().nullable(),
});

export const DeliverySchema = z.object({
  id: z.string().describe('dlv_…; sent as `webhook-id`, the same on every attempt'),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(['pending', 'sending', 'succeeded', 'failed']),
  attempts_made: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_retry_at: timestampSchema('When the next attempt is due (pending only)').nullable(),
  created_at: timestampSchema('When the delivery was queued'),
  attempts: z.array(AttemptSchema),
});

const envelope = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({ type: z.literal(type), timestamp: timestampSchema('When the event happened'), data });

const Change = z.object({ from: z.unknown(), to: z.unknown() });

/** Delivered bodies, for the OpenAPI `webhooks` section. export.completed is documented by the exports routes. */
export const WEBHOOK_PAYLOADS = [
  {
    name: 'creator.updated',
    summary: "A creator's profile or derived figures changed",
    payload: envelope(
      'creator.updated',
      z.object({
        platform: z.string(),
        handle: z.string(),
        changes: z
          .record(z.string(), Change)
          .describe(
            `Changed fields: {field: {from, to}}, among ${CREATOR_DIFF_FIELDS.join(', ')}. ` +
              'Lists are JSON arrays, reported when their members change (not their order). ' +
              'last_posted_at, posts_per_week and the view averages move with every post and are not reported.',
          ),
        creator: CreatorItemSchema.describe('The Creator item after the change'),
      }),
    ),
  },
  {
    name: 'campaign.metrics_updated',
    summary: "A campaign's totals moved (sent only to the campaign's account)",
    payload: envelope(
      'campaign.metrics_updated',
      z.object({
        campaign_id: z.string(),
        changes: z.record(z.string(), Change).describe('Changed metric sums: {metric: {from, to}}'),
        totals: z
          .record(z.string(), z.number().nullable())
          .describe(
            'impressions, reach, views, likes, comments, shares, saves, clicks, ' +
              'conversions, revenue, spend, engagements, engagement_rate, ctr, cpm, cpc, cpe, roas',
          ),
      }),
    ),
  },
  {
    name: 'webhook.test',
    summary: 'Sent by POST /v1/webhooks/{id}/test',
    payload: envelope('webhook.test', z.object({ webhook_id: z.string(), message: z.string() })),
  },
] as const;
