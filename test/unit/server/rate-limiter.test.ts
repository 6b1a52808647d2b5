import { describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../../../server/http/rate-limiter.js';
import { VersionedCache } from '../../../data/creators/search-cache.js';

describe('MemoryRateLimiter', () => {
  it('allows the limit per fixed window per key, then resets with the window', async () => {
    let now = 120_000 + 10_500;
    const limiter = new MemoryRateLimiter({ now: () => now });
    const results = [];
    for (let i = 0; i < 3; i++) results.push((await limiter.consume('a', 2)).allowed);
    expect(results).toEqual([true, true, false]);
    expect(await limiter.consume('b', 2)).toEqual(expect.objectContaining({ allowed: true, remaining: 1 }));
    expect(await limiter.peek('a', 2)).toEqual(expect.objectContaining({ remaining: 0, used: 2, resetSeconds: 50 }));
    now += 50_000;
    expect(await limiter.consume('a', 2)).toEqual(expect.objectContaining({ allowed: true, remaining: 1, resetSeconds: 60 }));
  });
});

describe('VersionedCache', () => {
  it('serves cached values until the TTL, and drops them when the data version changes', async () => {
    let now = 0;
    let version = 'v1';
    let loads = 0;
    const cache = new VersionedCache<number>(async () => version, { ttlMs: 10_000, maxEntries: 10, versionCheckMs: 1_000, now: () => now });
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
