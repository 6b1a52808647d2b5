import { backoffDelay, DEFAULT_BACKOFF, withRetry, type BackoffPolicy } from '../../data/net/retry-policy.js';

/** How often and how patiently a transient failure is retried (the shared policy, data/net/retry-policy.ts). */
export type RetryPolicy = BackoffPolicy;

export const DEFAULT_RETRY: Readonly<RetryPolicy> = DEFAULT_BACKOFF;

export { backoffDelay, withRetry };
