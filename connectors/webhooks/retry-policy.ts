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
  const base = schedule[attemptsDone - 1];
  if (base === undefined) return null;
  const jittered = base * 1000 * (0.8 + 0.4 * random());
  const floor = retryAfterSeconds === null ? 0 : Math.min(retryAfterSeconds, MAX_RETRY_AFTER_SECONDS) * 1000;
  return Math.round(Math.max(jittered, floor));
}
