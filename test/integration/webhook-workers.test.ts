import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fanOut, type DeliveryWorker } from '../../connectors/webhooks/index.js';
import { PgState } from '../../data/state/pg-state.js';
import type { StateDb, StateQueryable } from '../../data/state/state-db.js';
import type { Row, SqlParams } from '../../data/store.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { addEvent, addSubscription, eventually, startWorker, WEBHOOK_TEST_ENV } from './webhook-fixtures.js';

const SUBSCRIPTIONS = 4;
const EVENTS_EACH = 75;

let t: TestStore;
let receiver: Receiver;
let second: PgState | null = null;
let workers: DeliveryWorker[] = [];

beforeEach(async () => {
  t = await createTestStore({ env: WEBHOOK_TEST_ENV });
  receiver = await startReceiver({ responder: () => ({ delayMs: 3 }) });
});

afterEach(async () => {
  await Promise.all(workers.map((w) => w.stop()));
  workers = [];
  await second?.close();
  second = null;
  await receiver.close();
  await t.cleanup();
});

/**
 * A second handle on the same state, as another process would have: its own
 * PostgreSQL pool in cluster mode. Embedded, no second process can open the
 * DuckDB file, so both workers share the one store (still two claimers racing).
 */
async function secondState(): Promise<StateDb> {
  if (t.databaseUrl === null) return t.state;
  second = await PgState.open(t.databaseUrl, { applicationName: 'cds test second worker', max: 4 });
  return second;
}

/** The state, noting every (delivery, attempt) its worker leased: by a claim, or handed over by its fan-out. */
function noting(state: StateDb, leases: Set<string>): StateDb {
  const note = <T extends Row>(rows: T[]): T[] => {
    for (const r of rows) {
      if (
        typeof r['delivery_id'] === 'string' &&
        typeof r['attempts'] === 'number' &&
        (r['status'] ?? 'sending') === 'sending'
      ) {
        leases.add(`${r['delivery_id']}#${r['attempts']}`);
      }
    }
    return rows;
  };
  const wrap = (q: StateQueryable): StateQueryable => ({
    dialect: q.dialect,
    sql: q.sql,
    all: async <T extends Row = Row>(sql: string, params?: SqlParams) => note(await q.all<T>(sql, params)),
    one: <T extends Row = Row>(sql: string, params?: SqlParams) => q.one<T>(sql, params),
    run: (sql: string, params?: SqlParams) => q.run(sql, params),
  });
  return { ...wrap(state), transaction: (fn, options) => state.transaction((tx) => fn(wrap(tx)), options) };
}

async function backlog(): Promise<void> {
  for (let s = 0; s < SUBSCRIPTIONS; s++) {
    await addSubscription(t.state, { account_id: `acct_${s}`, url: receiver.url });
    for (let i = 0; i < EVENTS_EACH; i++)
      await addEvent(t.state, { type: 'export.completed', account_id: `acct_${s}`, data: { s, i } });
  }
}

const count = async (sql: string) => (await t.state.one<{ n: number }>(sql))?.n;

describe('several webhook workers on one state', () => {
  it('two workers (two pools, as two processes in cluster mode) deliver a backlog: every delivery once, no attempt leased twice', async () => {
    await backlog();
    const leasesA = new Set<string>();
    const leasesB = new Set<string>();
    // small batches and little prefetch, so both workers fan out, claim and record many times over
    const options = { maxInFlight: 8, perEndpoint: 2, prefetch: 2, fanOutBatch: 20 };
    workers = [
      startWorker(noting(t.state, leasesA), t.config, options),
      startWorker(noting(await secondState(), leasesB), t.config, options),
    ];
    const total = SUBSCRIPTIONS * EVENTS_EACH;
    await eventually(
      async () => (await count("SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded'")) === total,
      30_000,
      'every delivery to succeed',
    );

    expect(await count('SELECT count(*) AS n FROM deliveries')).toBe(total);
    expect(await count('SELECT count(*) AS n FROM events WHERE fanned_out_at IS NULL')).toBe(0);
    expect(leasesA.size).toBeGreaterThan(0);
    expect(leasesB.size).toBeGreaterThan(0);
    expect([...leasesA].filter((l) => leasesB.has(l))).toEqual([]);
    // the receiver got each delivery exactly once: no lease was taken twice (a lease outlives the whole test)
    const ids = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(new Set(ids).size).toBe(total);
    expect(ids).toHaveLength(total);
    const attempts = await t.state.all<{ attempt: number; error: string | null; n: number }>(
      'SELECT attempt, error, count(*) AS n FROM delivery_attempts GROUP BY attempt, error',
    );
    expect(attempts).toEqual([{ attempt: 1, error: null, n: total }]);
  });

  it('fan-outs racing from two handles create each delivery once and count each event once', async () => {
    await backlog();
    const other = await secondState();
    const runs = await Promise.all(Array.from({ length: 8 }, (_, i) => fanOut(i % 2 === 0 ? t.state : other, 40)));
    const more = await fanOut(t.state, 1000);
    expect(runs.reduce((sum, r) => sum + r.events, 0) + more.events).toBe(SUBSCRIPTIONS * EVENTS_EACH);
    expect(await count('SELECT count(*) AS n FROM deliveries')).toBe(SUBSCRIPTIONS * EVENTS_EACH);
    expect(await count('SELECT count(DISTINCT delivery_id) AS n FROM deliveries')).toBe(SUBSCRIPTIONS * EVENTS_EACH);
  });
});
