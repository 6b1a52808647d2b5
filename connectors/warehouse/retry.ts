import { backoffDelay, DEFAULT_BACKOFF, withRetry, type BackoffPolicy } from '../../core/retry-policy.js';

/** How often and how patiently a transient failure is retried (the shared policy, core/retry-policy.ts). */
export type RetryPolicy = BackoffPolicy;

export const DEFAULT_RETRY: Readonly<RetryPolicy> = DEFAULT_BACKOFF;

export { backoffDelay, withRetry };
