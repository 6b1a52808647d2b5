import { describe, expect, it } from 'vitest';
import { TerminalError, TransientError, type WarehouseError } from '../../../connectors/warehouse/errors.js';
import { backoffDelay, withRetry } from '../../../connectors/warehouse/retry.js';

const policy = { attempts: 4, baseDelayMs: 1, maxDelayMs: 4 };
const classify = (e: unknown): WarehouseError =>
  e instanceof TerminalError || e instanceof TransientError ? e : new TerminalError(String(e));

describe('retry with backoff and jitter', () => {
  it('the pause grows exponentially up to the cap, jittered below it', () => {
    const big = { attempts: 10, baseDelayMs: 100, maxDelayMs: 1000 };
    expect([0, 1, 2, 3, 4].map((n) => backoffDelay(big, n, () => 0.999))).toEqual([99, 199, 399, 799, 999]);
    expect(backoffDelay(big, 3, () => 0)).toBe(0);
  });

  it('a transient failure is retried until it succeeds', async () => {
    const seen: number[] = [];
    const result = await withRetry(
      async (attempt) => {
        if (attempt < 2) throw new TransientError('connection reset');
        return 'done';
      },
      classify,
      policy,
      (_e, attempt) => seen.push(attempt),
    );
    expect(result).toBe('done');
    expect(seen).toEqual([1, 2]);
  });

  it('a terminal failure stops at once', async () => {
    let calls = 0;
    await expect(
      withRetry(
        async () => {
          calls++;
          throw new TerminalError('bad password');
        },
        classify,
        policy,
      ),
    ).rejects.toThrow('bad password');
    expect(calls).toBe(1);
  });

  it('a transient failure that persists gives up after the last attempt, still transient', async () => {
    let calls = 0;
    const error = await withRetry(
      async () => {
        calls++;
        throw new TransientError('refused');
      },
      classify,
      policy,
    ).catch((e: unknown) => e);
    expect(calls).toBe(4);
    expect(error).toBeInstanceOf(TransientError);
  });
});
