import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageCounter } from '../../../data/usage/usage-counter.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

let t: TestStore;

beforeAll(async () => {
  t = await createTestStore();
});

afterAll(async () => {
  await t.cleanup();
});

async function stored(
  accountId: string,
): Promise<Array<{ operation: string; status_class: string; requests: number; rate_limited: number }>> {
  return t.state.all(
    `SELECT operation, status_class, requests::INTEGER AS requests, rate_limited::INTEGER AS rate_limited
    FROM api_usage WHERE account_id = ? ORDER BY operation, status_class`,
    [accountId],
  );
}

describe('UsageCounter', () => {
  it('writes one row per key, operation, minute and status class, adding to rows an earlier flush wrote', async () => {
    const counter = new UsageCounter(t.state);
    const at = Date.UTC(2026, 0, 1, 12, 0, 30);
    for (const status of [200, 204, 404, 429])
      counter.record({ accountId: 'acct_u1', keyId: 'key_u1', operation: 'getMeta', status, at });
    await counter.flush();
    counter.record({ accountId: 'acct_u1', keyId: 'key_u1', operation: 'getMeta', status: 200, at: at + 10_000 });
    await counter.flush();
    expect(await stored('acct_u1')).toEqual([
      { operation: 'getMeta', status_class: '2xx', requests: 3, rate_limited: 0 },
      { operation: 'getMeta', status_class: '4xx', requests: 2, rate_limited: 1 },
    ]);
  });

  it('when a flush fails, keeps its counts and writes them with the next one', async () => {
    const errors: unknown[] = [];
    const counter = new UsageCounter(t.state, (e) => errors.push(e));
    counter.record({ accountId: 'acct_u2', keyId: 'key_u2', operation: 'listLists', status: 200, at: Date.now() });
    await t.state.run('ALTER TABLE api_usage RENAME TO api_usage_away');
    try {
      await counter.flush();
    } finally {
      await t.state.run('ALTER TABLE api_usage_away RENAME TO api_usage');
    }
    expect(errors).toHaveLength(1);
    counter.record({ accountId: 'acct_u2', keyId: 'key_u2', operation: 'listLists', status: 201, at: Date.now() });
    await counter.flush();
    expect(await stored('acct_u2')).toEqual([
      { operation: 'listLists', status_class: '2xx', requests: 2, rate_limited: 0 },
    ]);
  });
});
