import type { Config } from '../../config/config.js';
import { AllowList } from './ssrf-guard.js';

/** Tuning of the delivery worker; defaults come from the service config, tests and the bench override. */
export interface WebhookWorkerOptions {
  allow: AllowList;
  retryScheduleSeconds: readonly number[];
  timeoutMs: number;
  /** Sends in flight across all endpoints. */
  maxInFlight: number;
  /** Sends in flight to one subscription, so one slow receiver cannot take every slot. */
  perEndpoint: number;
  /** How long a claimed delivery stays ours; after it, another worker (or a restart) may retry it. */
  leaseMs: number;
  /** Idle wait between looks at the outbox. */
  pollMs: number;
  /** Events fanned out per transaction. */
  fanOutBatch: number;
  retentionDays: number;
  /** How often old events and delivery logs are pruned. */
  pruneEveryMs: number;
  /** Off only for tests against a self-signed local receiver. */
  rejectUnauthorized: boolean;
}

/** The worker's options from the service config, with overrides. */
export function webhookWorkerOptions(config: Readonly<Config>, overrides: Partial<WebhookWorkerOptions> = {}): WebhookWorkerOptions {
  const timeoutMs = config.webhooks.timeoutMs;
  return {
    allow: new AllowList(config.webhooks.allowHosts),
    retryScheduleSeconds: config.webhooks.retryScheduleSeconds,
    timeoutMs,
    maxInFlight: 64,
    perEndpoint: 8,
    // A claim waits at most one round of sends before its own (the worker holds twice the per-endpoint
    // concurrency), so a lease of two timeouts plus room for recording outlives every attempt.
    leaseMs: 2 * timeoutMs + 30_000,
    pollMs: 100,
    fanOutBatch: 1000,
    retentionDays: config.retentionDays,
    pruneEveryMs: 3600_000,
    rejectUnauthorized: true,
    ...overrides,
  };
}

/** Both secrets sign for a day after a rotation, so receivers can switch without dropping deliveries. */
export const ROTATION_GRACE_MS = 24 * 3600 * 1000;
