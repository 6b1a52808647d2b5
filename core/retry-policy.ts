import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The one retry policy of the outbound connections (HTTP JSON sources, warehouse
 * destinations, webhook deliveries): how long to wait before the next attempt of
 * a transient failure, and how a server's `Retry-After` is honoured. Callers keep
 * their own classification of failures (house style 9); only the timing lives here.
 */

/** Exponential backoff: how many tries, and the pause's base and cap. */
export interface BackoffPolicy {
  /** Total tries, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** Five tries from half a second, at most 30 s apart. */
export const DEFAULT_BACKOFF: Readonly<BackoffPolicy> = Object.freeze({
  attempts: 5,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
});

/** The longest pause a server's `Retry-After` may impose on a pull or a sync, so a typo there cannot stall a run. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Exponential backoff with full jitter: a random pause in [0, min(max, base·2^retry)),
 * `retry` counted from 0 (the pause after the first failed try). Full jitter spreads
 * the retries of many clients that failed together.
 */
export function backoffDelay(policy: BackoffPolicy, retry: number, random: () => number = Math.random): number {
  const cap = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * cap);
}

/**
 * The pause before the next try: the jittered backoff, but never shorter than the
 * server asked with `Retry-After` (capped at `maxRetryAfterMs`).
 */
export function retryDelayMs(
  policy: BackoffPolicy,
  retry: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
  maxRetryAfterMs = MAX_RETRY_AFTER_MS,
): number {
  const floor = retryAfterMs === null ? 0 : Math.min(retryAfterMs, maxRetryAfterMs);
  return Math.max(backoffDelay(policy, retry, random), floor);
}

/**
 * A fixed schedule instead of a curve (webhook deliveries, hours apart): the
 * `attemptsDone`-th step in seconds, jittered by ±`jitter` so a burst's retries do
 * not land together, with `Retry-After` as a floor capped at `maxRetryAfterMs`.
 * Null when the schedule is exhausted.
 */
export function scheduledDelayMs(
  attemptsDone: number,
  scheduleSeconds: readonly number[],
  retryAfterMs: number | null,
  options: { jitter: number; maxRetryAfterMs: number },
  random: () => number = Math.random,
): number | null {
  const base = scheduleSeconds[attemptsDone - 1];
  if (base === undefined) return null;
  const jittered = base * 1000 * (1 - options.jitter + 2 * options.jitter * random());
  const floor = retryAfterMs === null ? 0 : Math.min(retryAfterMs, options.maxRetryAfterMs);
  return Math.round(Math.max(jittered, floor));
}

/** `Retry-After` as whole seconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or unreadable. */
export function parseRetryAfterSeconds(value: string | null | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/** `Retry-After` in milliseconds from now; null when absent or unreadable. */
export function parseRetryAfterMs(value: string | null | undefined, now = Date.now()): number | null {
  const seconds = parseRetryAfterSeconds(value, now);
  return seconds === null ? null : seconds * 1000;
}

/** A failure as the retry loop needs to know it: worth another try, and how long the server asked to wait. */
export interface RetryClassified {
  transient: boolean;
  retryAfterMs?: number | null;
}

/**
 * Runs `fn`, retrying while `classify` calls its failure transient and tries are
 * left, pausing by `retryDelayMs`; a terminal failure or the last transient one is
 * thrown as classified.
 */
export async function withRetry<T, E extends RetryClassified>(
  fn: (attempt: number) => Promise<T>,
  classify: (error: unknown) => E,
  policy: BackoffPolicy,
  onRetry?: (error: E, attempt: number, delayMs: number) => void,
  wait: (ms: number) => Promise<unknown> = sleep,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      const classified = classify(error);
      if (!classified.transient || attempt + 1 >= policy.attempts) throw classified;
      const delay = retryDelayMs(policy, attempt, classified.retryAfterMs ?? null);
      onRetry?.(classified, attempt + 1, delay);
      await wait(delay);
    }
  }
}
