import { scheduledDelayMs } from '../../core/retry-policy.js';

/** Longest wait a receiver's Retry-After can impose, so a typo there cannot park a delivery forever. */
const MAX_RETRY_AFTER_SECONDS = 24 * 3600;

/** How long a subscription may fail every delivery before it is disabled. */
export const FAILING_DISABLE_MS = 5 * 24 * 3600 * 1000;

/**
 * Milliseconds to wait before the next attempt after `attemptsDone` failed ones, or
 * null when the schedule is exhausted. Jitter (±20 %) spreads retries of a burst so
 * a recovering receiver is not hit by all of them at once; a Retry-After is a floor.
 */
export function nextRetryDelayMs(
  attemptsDone: number,
  schedule: readonly number[],
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number | null {
  return scheduledDelayMs(
    attemptsDone,
    schedule,
    retryAfterSeconds === null ? null : retryAfterSeconds * 1000,
    { jitter: 0.2, maxRetryAfterMs: MAX_RETRY_AFTER_SECONDS * 1000 },
    random,
  );
}
