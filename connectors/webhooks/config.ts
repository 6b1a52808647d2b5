import type { Config } from '../../config/config.js';
import { SecretBox } from './secret-box.js';
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
  /** Claims held per send slot (queued + in flight), globally and per subscription; at least 1. */
  prefetch: number;
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
  /** Opens the stored (sealed) signing secrets. */
  secrets: SecretBox;
}

/** The worker's options from the service config, with overrides. */
export function webhookWorkerOptions(
  config: Readonly<Config>,
  overrides: Partial<WebhookWorkerOptions> = {},
): WebhookWorkerOptions {
  const timeoutMs = config.webhooks.timeoutMs;
  // Measured: 4 claims per slot delivers ~30 % more than 2 (bigger batches per statement) at the cost of a longer lease.
  const prefetch = overrides.prefetch ?? 4;
  return {
    allow: new AllowList(config.webhooks.allowHosts),
    retryScheduleSeconds: config.webhooks.retryScheduleSeconds,
    timeoutMs,
    maxInFlight: 64,
    perEndpoint: 8,
    prefetch,
    // A claim waits at most prefetch - 1 rounds of sends before its own, so a lease of `prefetch` timeouts
    // plus room for recording outlives every attempt.
    leaseMs: prefetch * timeoutMs + 30_000,
    pollMs: 100,
    fanOutBatch: 1000,
    retentionDays: config.retentionDays,
    pruneEveryMs: 3600_000,
    rejectUnauthorized: true,
    secrets: overrides.secrets ?? SecretBox.fromConfig(config),
    ...overrides,
  };
}

/** Both secrets sign for a day after a rotation, so receivers can switch without dropping deliveries. */
export const ROTATION_GRACE_MS = 24 * 3600 * 1000;
