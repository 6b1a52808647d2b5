import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gcraPolicy, MemoryRateLimiter } from '../../../server/http/rate-limiter.js';
import { VersionedCache } from '../../../data/creators/search-cache.js';

describe('MemoryRateLimiter (GCRA)', () => {
  it('a fresh key gets a burst of exactly the limit, then one request per window ÷ limit', async () => {
    let now = 120_000 + 10_500;
    const limiter = new MemoryRateLimiter({ now: () => now });
    const burst = [];
    for (let i = 0; i < 4; i++) burst.push(await limiter.consume('a', 3));
    expect(burst.map((s) => [s.allowed, s.remaining, s.resetSeconds])).toEqual([
      [true, 2, 20],
      [true, 1, 40],
      [true, 0, 20],
      [false, 0, 20],
    ]);
    expect(await limiter.consume('b', 3)).toEqual(
      expect.objectContaining({ allowed: true, remaining: 2, used: 1, resetSeconds: 20 }),
    );
    expect(await limiter.peek('a', 3)).toEqual(
      expect.objectContaining({ allowed: false, remaining: 0, used: 3, resetSeconds: 20 }),
    );
    now += 15_000;
    expect(await limiter.consume('a', 3)).toEqual(
      expect.objectContaining({ allowed: false, remaining: 0, resetSeconds: 5 }),
    );
    now += 5_000;
    expect(await limiter.consume('a', 3)).toEqual(
      expect.objectContaining({ allowed: true, remaining: 0, used: 3, resetSeconds: 20 }),
    );
    now += 60_000;
    expect(await limiter.peek('a', 3)).toEqual(
      expect.objectContaining({ allowed: true, remaining: 3, used: 0, resetSeconds: 0 }),
    );
  });

  it('peek counts nothing, and used is always limit − remaining', async () => {
    let now = 0;
    const limiter = new MemoryRateLimiter({ now: () => now });
    for (let i = 0; i < 5; i++) await limiter.consume('a', 120);
    now += 700;
    const seen = [await limiter.peek('a', 120), await limiter.peek('a', 120)];
    expect(seen.map((s) => [s.used, s.remaining])).toEqual([
      [4, 116],
      [4, 116],
    ]);
  });

  it('across a fixed-window edge no more than the limit pass (fixed windows let 2 × limit through)', async () => {
    let now = 59_900;
    const limiter = new MemoryRateLimiter({ now: () => now });
    let allowed = 0;
    for (let i = 0; i < 120; i++) if ((await limiter.consume('a', 120)).allowed) allowed += 1;
    now = 60_100;
    for (let i = 0; i < 120; i++) if ((await limiter.consume('a', 120)).allowed) allowed += 1;
    expect(allowed).toBe(120);
  });

  it('a limit of 0 lets nothing through', async () => {
    const limiter = new MemoryRateLimiter({ now: () => 0 });
    expect(await limiter.consume('a', 0)).toEqual(
      expect.objectContaining({ allowed: false, remaining: 0, resetSeconds: 60 }),
    );
  });

  describe('over any sequence of request times', () => {
    /** Request times in ms (bursts of up to 8 at one instant), sorted, and a limit; the limiter's verdicts on them. */
    const traffic = fc.record({
      limit: fc.integer({ min: 1, max: 20 }),
      times: fc
        .array(fc.tuple(fc.integer({ min: 0, max: 240_000 }), fc.integer({ min: 1, max: 8 })), {
          minLength: 1,
          maxLength: 200,
        })
        .map((bursts) => bursts.flatMap(([t, n]) => Array<number>(n).fill(t)).sort((a, b) => a - b)),
    });

    async function verdicts(limit: number, times: number[]): Promise<{ allowed: number[]; refused: number[] }> {
      let now = 0;
      const limiter = new MemoryRateLimiter({ now: () => now });
      const allowed: number[] = [];
      const refused: number[] = [];
      for (const t of times) {
        now = t;
        ((await limiter.consume('k', limit)).allowed ? allowed : refused).push(t);
      }
      return { allowed, refused };
    }

    const intervalMs = (limit: number): number => gcraPolicy(limit, 60).intervalUs / 1000;
    const passedIn = (allowed: number[], from: number, to: number): number =>
      allowed.filter((t) => t >= from && t <= to).length;

    it('in any span of L ms at most limit + ⌊L / (60 s ÷ limit)⌋ pass: the limit at once, never 2 × limit in less than a minute', async () => {
      await fc.assert(
        fc.asyncProperty(traffic, async ({ limit, times }) => {
          const { allowed } = await verdicts(limit, times);
          for (const from of allowed) {
            for (const to of allowed) {
              if (to < from) continue;
              expect(passedIn(allowed, from, to)).toBeLessThanOrEqual(
                limit + Math.floor((to - from) / intervalMs(limit)),
              );
            }
          }
          for (const from of allowed) expect(passedIn(allowed, from, from + 59_999)).toBeLessThanOrEqual(2 * limit - 1);
        }),
        { numRuns: 200 },
      );
    });

    it('refuses a request only when the span before it already holds limit + ⌊L / (60 s ÷ limit)⌋', async () => {
      await fc.assert(
        fc.asyncProperty(traffic, async ({ limit, times }) => {
          const { allowed, refused } = await verdicts(limit, times);
          for (const t of refused) {
            const full = allowed.some(
              (from) => from <= t && passedIn(allowed, from, t) >= limit + Math.floor((t - from) / intervalMs(limit)),
            );
            expect(full).toBe(true);
          }
        }),
        { numRuns: 200 },
      );
    });
  });
});

describe('VersionedCache', () => {
  it('serves cached values until the TTL, and drops them when the data version changes', async () => {
    let now = 0;
    let version = 'v1';
    let loads = 0;
    const cache = new VersionedCache<number>(async () => version, {
      ttlMs: 10_000,
      maxEntries: 10,
      versionCheckMs: 1_000,
      now: () => now,
    });
    const load = async (): Promise<number> => ++loads;
    expect(await cache.get('k', load)).toBe(1);
    expect(await cache.get('k', load)).toBe(1);
    version = 'v2';
    now = 500;
    expect(await cache.get('k', load)).toBe(1); // the version is looked at once per second
    now = 1_500;
    expect(await cache.get('k', load)).toBe(2);
    now = 12_000;
    expect(await cache.get('k', load)).toBe(3);
  });

  it('lets concurrent misses of one key share a single load', async () => {
    let loads = 0;
    const cache = new VersionedCache<number>(async () => 'v', { ttlMs: 60_000, maxEntries: 10, versionCheckMs: 1_000 });
    const slow = async (): Promise<number> => {
      loads += 1;
      await new Promise((r) => setTimeout(r, 20));
      return 7;
    };
    expect(await Promise.all(Array.from({ length: 20 }, () => cache.get('k', slow)))).toEqual(Array(20).fill(7));
    expect(loads).toBe(1);
  });

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const cache = new VersionedCache<string>(async () => 'v', { ttlMs: 60_000, maxEntries: 2, versionCheckMs: 1_000 });
    await cache.get('a', async () => 'A');
    await cache.get('b', async () => 'B');
    await cache.get('a', async () => 'A2');
    await cache.get('c', async () => 'C');
    expect(cache.size).toBe(2);
    expect(await cache.get('b', async () => 'B2')).toBe('B2');
  });
});
