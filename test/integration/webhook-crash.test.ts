import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../config/config.js';
import type { StateDb } from '../../data/state/state-db.js';
import { Store } from '../../data/store.js';
import { childScript } from '../helpers/child-script.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { addEvent, addSubscription, eventually, startWorker, WEBHOOK_TEST_ENV } from './webhook-fixtures.js';

const EVENTS = 60;
const LEASE_MS = 1500;

let t: TestStore | null = null;
let receiver: Receiver | null = null;

afterEach(async () => {
  await receiver?.close();
  await t?.cleanup();
});

async function spawnWorker(dir: string, databaseUrl: string | null) {
  const child = spawn(
    process.execPath,
    [
      await childScript('test/integration/webhook-crash.child.ts'),
      dir,
      String(LEASE_MS),
      ...(databaseUrl ? [databaseUrl] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const ready = new Promise<void>((ok, fail) => {
    child.stdout.on('data', (b: Buffer) => {
      if (b.toString().includes('ready')) ok();
    });
    child.once('exit', (code) => fail(new Error(`worker exited early (${code})`)));
  });
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  return { child, ready, exited };
}

describe('webhook delivery across a crash', () => {
  it('a worker killed with SIGKILL mid-delivery loses nothing: a restarted one delivers every event with the same ids', async () => {
    t = await createTestStore({ env: WEBHOOK_TEST_ENV });
    receiver = await startReceiver({ responder: () => ({ delayMs: 150 }) });
    await addSubscription(t.state, { account_id: 'acct_a', url: receiver.url });
    for (let i = 0; i < EVENTS; i++)
      await addEvent(t.state, { type: 'export.completed', account_id: 'acct_a', data: { i } });
    // embedded, the child must own the DuckDB file (one writer process); in cluster mode it works on PostgreSQL alone
    const embedded = t.databaseUrl === null;
    if (embedded) await t.store.close();

    const first = await spawnWorker(t.dir, t.databaseUrl);
    await first.ready;
    await receiver.waitFor(15, 20_000);
    first.child.kill('SIGKILL');
    await first.exited;
    const beforeCrash = receiver.requests.length;

    let state: StateDb = t.state;
    if (embedded) {
      const store = await Store.open(testConfig(t.dir, WEBHOOK_TEST_ENV).dbPath, { threads: 2 });
      t.store = store;
      state = store;
      t.cleanup = ((cleanup) => async () => {
        await store.close();
        await cleanup();
      })(t.cleanup);
    }
    const worker = startWorker(state, t.config, { leaseMs: LEASE_MS, perEndpoint: 10 });
    try {
      await eventually(
        async () => {
          const row = await state.one<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded'");
          return row?.n === EVENTS;
        },
        20_000,
        'every delivery to succeed',
      );
    } finally {
      await worker.stop();
    }
    const ids = (await state.all<{ delivery_id: string }>('SELECT delivery_id FROM deliveries')).map(
      (r) => r.delivery_id,
    );
    const received = receiver.requests.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(received)).toEqual(new Set(ids));
    const events = new Set(receiver.requests.map((r) => (JSON.parse(r.body) as { data: { i: number } }).data.i));
    expect(events.size).toBe(EVENTS);
    // the sends in flight when the process died were sent again, under the same webhook-id
    expect(receiver.requests.length).toBeGreaterThan(EVENTS);
    expect(beforeCrash).toBeLessThan(EVENTS);
    const interrupted = await state.one<{ n: number }>(
      "SELECT count(*) AS n FROM delivery_attempts WHERE error LIKE 'interrupted%'",
    );
    expect(interrupted?.n).toBeGreaterThan(0);
  });
});
