import type { DeliveryRow } from './delivery-log.queries.js';
import type { SubscriptionRow } from './webhook.queries.js';

/** Event types a subscription can ask for (`*` = all); `webhook.test` always reaches the tested one. */
export const SUBSCRIBABLE_EVENTS = ['creator.updated', 'campaign.metrics_updated', 'export.completed'] as const;
export type SubscribableEvent = (typeof SUBSCRIBABLE_EVENTS)[number];

export interface WebhookFilter {
  list_ids?: string[];
  handles?: string[];
  campaign_ids?: string[];
}

/** A subscription as the API shows it. The secret appears only on create and rotate. */
export interface Webhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  filter: WebhookFilter | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  /** While a rotated-out secret still signs (both signatures are sent), until when. */
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export function toWebhook(row: SubscriptionRow): Webhook {
  return {
    id: row.webhook_id,
    url: row.url,
    events: [...row.events],
    description: row.description ?? null,
    filter: row.filter ? (JSON.parse(row.filter) as WebhookFilter) : null,
    status: row.status === 'disabled' ? 'disabled' : 'enabled',
    disabled_reason: row.disabled_reason ?? null,
    previous_secret_expires_at: row.previous_secret_expires_at ?? null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** One delivery in the log: its state, next retry and every attempt. */
export interface DeliveryLogEntry {
  id: string;
  event_id: string;
  event_type: string;
  status: 'pending' | 'sending' | 'succeeded' | 'failed';
  attempts_made: number;
  last_status_code: number | null;
  last_error: string | null;
  /** When the next attempt is due; null once succeeded or failed, and while an attempt is in flight. */
  next_retry_at: string | null;
  created_at: string;
  attempts: Array<{
    attempt: number;
    started_at: string;
    status_code: number | null;
    latency_ms: number | null;
    error: string | null;
  }>;
}

export function toDeliveryLogEntry(row: DeliveryRow): DeliveryLogEntry {
  const status = row.status as DeliveryLogEntry['status'];
  return {
    id: row.delivery_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status,
    attempts_made: Number(row.attempts),
    last_status_code: row.last_status_code ?? null,
    last_error: row.last_error ?? null,
    next_retry_at: status === 'pending' ? row.next_attempt_at : null,
    created_at: row.created_at,
    attempts: (row.log ?? []).map((a) => ({
      attempt: Number(a.attempt),
      started_at: a.started_at,
      status_code: a.status_code ?? null,
      latency_ms: a.latency_ms === null ? null : Math.round(a.latency_ms * 10) / 10,
      error: a.error ?? null,
    })),
  };
}
