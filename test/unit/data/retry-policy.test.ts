import { describe, expect, it } from 'vitest';
import {
  backoffDelay,
  parseRetryAfterMs,
  parseRetryAfterSeconds,
  retryDelayMs,
  scheduledDelayMs,
  withRetry,
} from '../../../core/retry-policy.js';

const policy = { attempts: 3, baseDelayMs: 100, maxDelayMs: 1000 };

describe('the shared retry policy', () => {
  it('backs off exponentially with full jitter, up to the cap', () => {
    expect([0, 1, 2, 3, 4].map((r) => backoffDelay(policy, r, () => 0.999))).toEqual([99, 199, 399, 799, 999]);
    expect(backoffDelay(policy, 2, () => 0)).toBe(0);
  });

  it('never retries sooner than Retry-After, which is capped', () => {
    expect(retryDelayMs(policy, 0, 2000, () => 0.5)).toBe(2000);
    expect(retryDelayMs(policy, 0, null, () => 0.5)).toBe(50);
    expect(retryDelayMs(policy, 0, 3_600_000, () => 0.5)).toBe(60_000);
  });

  it('a schedule jitters each step by ±20 %, takes Retry-After as a floor, and ends', () => {
    const o = { jitter: 0.2, maxRetryAfterMs: 86_400_000 };
    expect(scheduledDelayMs(1, [5, 300], null, o, () => 0)).toBe(4000);
    expect(scheduledDelayMs(1, [5, 300], null, o, () => 1)).toBe(6000);
    expect(scheduledDelayMs(1, [5, 300], 60_000, o, () => 0.5)).toBe(60_000);
    expect(scheduledDelayMs(3, [5, 300], null, o)).toBeNull();
  });

  it('reads Retry-After as delta-seconds or an HTTP date, and ignores anything else', () => {
    const now = Date.parse('2026-11-21T10:00:00Z');
    expect(parseRetryAfterSeconds('7')).toBe(7);
    expect(parseRetryAfterMs(' 2 ')).toBe(2000);
    expect(parseRetryAfterSeconds('Sat, 21 Nov 2026 10:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfterSeconds('Sat, 21 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterSeconds('soon')).toBeNull();
    expect(parseRetryAfterSeconds(null)).toBeNull();
  });

  it("retries a transient failure with the server's wait, stops at a terminal one, and gives up after the last try", async () => {
    const waits: number[] = [];
    const wait = async (ms: number): Promise<void> => void waits.push(ms);
    const classify = (e: unknown) => e as { transient: boolean; retryAfterMs?: number | null };
    let calls = 0;
    expect(
      await withRetry(
        async () => {
          if (++calls < 3) throw { transient: true, retryAfterMs: 5000 };
          return 'ok';
        },
        classify,
        policy,
        undefined,
        wait,
      ),
    ).toBe('ok');
    expect(waits).toEqual([5000, 5000]);
    await expect(
      withRetry(
        async () => {
          throw { transient: false };
        },
        classify,
        policy,
        undefined,
        wait,
      ),
    ).rejects.toEqual({ transient: false });
    calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw { transient: true };
        },
        classify,
        policy,
        undefined,
        wait,
      ),
    ).rejects.toEqual({ transient: true });
    expect(calls).toBe(3);
  });
});
