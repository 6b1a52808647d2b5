import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgState } from '../../data/state/pg-state.js';
import type { StateDb } from '../../data/state/state-db.js';
import { PgRateLimiter } from '../../server/http/pg-rate-limiter.js';
import { gcraPolicy, MemoryRateLimiter, type RateLimiter } from '../../server/http/rate-limiter.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { itInClusterMode } from '../helpers/state.js';

const LIMIT = 120;

let t: TestApp;
/** A second connection pool on the same state, as another API replica has (the store itself when embedded). */
let second: StateDb;

beforeAll(async () => {
  t = await startTestApp();
  second = t.databaseUrl ? await PgState.open(t.databaseUrl, { applicationName: 'cds test replica', max: 8 }) : t.state;
});
afterAll(async () => {
  if (second !== t.state) await (second as PgState).close();
  await t.close();
});

/** Two replicas' limiters: each on its own pool in cluster mode; one process's limiter when embedded. */
function replicaLimiters(): [RateLimiter, RateLimiter] {
  if (t.state.dialect === 'duckdb') {
    const one = new MemoryRateLimiter();
    return [one, one];
  }
  return [new PgRateLimiter(t.state), new PgRateLimiter(second)];
}

/** Sends `total` calls through `send`, `concurrency` at a time; answers how many passed and how long it took. */
async function fire(
  total: number,
  concurrency: number,
  send: (i: number) => Promise<boolean>,
): Promise<{ passed: number; ms: number }> {
  let next = 0;
  let passed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) if (await send(next++)) passed += 1;
    }),
  );
  return { passed, ms: performance.now() - started };
}

/**
 * GCRA's bound: the burst, plus one request per interval (60 s ÷ limit) that
 * elapsed while firing; a limiter per replica would let twice the burst through.
 */
function expectWithinLimit(passed: number, ms: number): void {
  const refills = Math.floor((ms * 1000) / gcraPolicy(LIMIT, 60).intervalUs);
  expect(passed).toBeGreaterThanOrEqual(LIMIT);
  expect(passed).toBeLessThanOrEqual(LIMIT + refills);
}

describe('one account, two replicas firing at once', () => {
  it('the limiters together let the limit through, within 2 %, not the limit per replica', async () => {
    const limiters = replicaLimiters();
    const { passed, ms } = await fire(
      3 * LIMIT,
      16,
      async (i) => (await limiters[i % 2]!.consume('acct-shared', LIMIT)).allowed,
    );
    expectWithinLimit(passed, ms);
    // the statements take well under a second here, so about the burst alone passes
    expect(Math.abs(passed - LIMIT) / LIMIT).toBeLessThanOrEqual(0.02);
  });

  itInClusterMode('two API replicas over HTTP: 429s once the account spent its limit across both', async () => {
    const replica = await startTestApp({ testStore: { ...t, state: second } });
    try {
      const key = await t.key();
      const apps = [t, replica];
      const refusals: Headers[] = [];
      const { passed, ms } = await fire(3 * LIMIT, 16, async (i) => {
        const res = await apps[i % 2]!.api('/v1/meta', { key });
        if (res.status === 429) refusals.push(res.headers);
        return res.status === 200;
      });
      expectWithinLimit(passed, ms);
      expect(refusals).toHaveLength(3 * LIMIT - passed);
      for (const headers of refusals) {
        expect(headers.get('ratelimit')).toBe(`"minute";r=0;t=${headers.get('retry-after')}`);
        expect(Number(headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      }
    } finally {
      await replica.close();
    }
  });
});
