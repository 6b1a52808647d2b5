import { setTimeout as sleep } from 'node:timers/promises';
import type { WarehouseError } from './errors.js';

/** How often and how patiently a transient failure is retried. */
export interface RetryPolicy {
  /** Total tries, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({ attempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 });

/** Exponential backoff with full jitter: a random pause in [0, min(max, base·2^n)). */
export function backoffDelay(policy: RetryPolicy, attempt: number, random: () => number = Math.random): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * cap);
}

/**
 * Runs `fn`, retrying while `classify` calls its failure transient and tries are
 * left; a terminal failure or the last transient one is thrown, classified.
 */
export async function withRetry<T>(
  fn: (attempt: number) => Promise<T>,
  classify: (error: unknown) => WarehouseError,
  policy: RetryPolicy,
  onRetry?: (error: WarehouseError, attempt: number, delayMs: number) => void,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      const classified = classify(error);
      if (!classified.transient || attempt + 1 >= policy.attempts) throw classified;
      const delay = backoffDelay(policy, attempt);
      onRetry?.(classified, attempt + 1, delay);
      await sleep(delay);
    }
  }
}
