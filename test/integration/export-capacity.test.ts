import { readdirSync } from 'node:fs';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createExportWorker } from '../../connectors/exports/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';

let t: TestApp;
const logger = pino({ level: 'silent' });

interface Job {
  id: string;
  status: string;
  error: string | null;
  started_at: string | null;
  finished_at: string | null;
}
interface Problem {
  code: string;
  detail: string;
  limit?: string;
  limit_value?: number;
}

const SMALL = { source: 'search', filters: { niche: 'beauty' }, format: 'csv' } as const;

async function post(key: string, json: unknown = SMALL): Promise<Response> {
  return t.api('/v1/exports', { key, method: 'POST', json });
}

async function queue(key: string): Promise<Job> {
  const res = await post(key);
  expect(res.status).toBe(202);
  return (await res.json()) as Job;
}

async function job(key: string, id: string): Promise<Job> {
  return (await (await t.api(`/v1/exports/${id}`, { key })).json()) as Job;
}

function worker(
  options: Parameters<typeof createExportWorker>[1] = {},
  deps: Partial<Parameters<typeof createExportWorker>[0]> = {},
) {
  return createExportWorker({ store: t.store, state: t.state, config: t.config, logger, ...deps }, options);
}

beforeAll(async () => {
  t = await startTestApp({
    creators: 2000,
    planLimits: { entry: { exportsInFlight: 2 }, enterprise: { exportStorageBytes: 1 } },
  });
});
afterAll(async () => t.close());
// every test starts with an empty queue
afterEach(async () => {
  const drain = worker();
  while (await drain.runNext());
});

describe('export capacity per account', () => {
  it("past the plan's exports queued or running the answer is 403 limit_exceeded naming the limit, and nothing is queued", async () => {
    const { key, accountId } = await t.keyWithAccount({ plan: 'entry' });
    await queue(key);
    await queue(key);
    const refused = await post(key);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toMatchObject({
      code: 'limit_exceeded',
      limit: 'exports_in_flight',
      limit_value: 2,
    } satisfies Partial<Problem>);
    const rows = await t.state.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM exports WHERE account_id = ?', [
      accountId,
    ]);
    expect(rows?.n).toBe(2);

    const other = await t.keyWithAccount({ plan: 'entry' });
    expect((await post(other.key)).status).toBe(202);
    expect(await worker().runNext()).toBe(true);
    expect((await post(key)).status).toBe(202);
  });

  it("once the account's unexpired files fill its storage quota a new export is 403 limit_exceeded, until they expire", async () => {
    const { key } = await t.keyWithAccount({ plan: 'enterprise' });
    const first = await queue(key);
    expect(await worker().runNext()).toBe(true);
    expect((await job(key, first.id)).status).toBe('succeeded');
    const refused = await post(key);
    expect(refused.status).toBe(403);
    const problem = (await refused.json()) as Problem;
    expect(problem).toMatchObject({ code: 'limit_exceeded', limit: 'export_storage_bytes', limit_value: 1 });
    expect(problem.detail).toMatch(/expire/);

    await t.state.run(`UPDATE exports SET expires_at = TIMESTAMP '2000-01-01' WHERE export_id = ?`, [first.id]);
    expect((await post(key)).status).toBe(202);
  });
});

describe('free disk before a job starts', () => {
  it('below the free-space floor the job fails with a clear error and writes no file', async () => {
    const { key } = await t.keyWithAccount({ plan: 'entry' });
    const queued = await queue(key);
    const config = { ...t.config, exportMinFreeBytes: Number.MAX_SAFE_INTEGER }; // more than any disk has: the real statfs says no
    expect(await worker({}, { config }).runNext()).toBe(true);
    const failed = await job(key, queued.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('the server is low on disk space, so the export was not started; create it again later');
    expect(readdirSync(t.config.exportsDir).filter((f) => f.startsWith(queued.id))).toEqual([]);
  });

  it('the free space is read from the exports folder, and with enough of it the job runs', async () => {
    const { key } = await t.keyWithAccount({ plan: 'entry' });
    const queued = await queue(key);
    const asked: string[] = [];
    const freeBytes = async (path: string): Promise<number> => {
      asked.push(path);
      return t.config.exportMinFreeBytes;
    };
    expect(await worker({}, { freeBytes }).runNext()).toBe(true);
    expect(asked).toEqual([t.config.exportsDir]);
    expect((await job(key, queued.id)).status).toBe('succeeded');
  });
});

describe('scheduling across accounts', () => {
  it("an account that queued five exports takes turns: another account's one job runs before the first account's third", async () => {
    const a = await t.keyWithAccount({ plan: 'enterprise' });
    const b = await t.keyWithAccount({ plan: 'enterprise' });
    const ofA: Job[] = [];
    for (let i = 0; i < 5; i++) ofA.push(await queue(a.key));
    const ofB = await queue(b.key);
    const order: string[] = [];
    const runner = worker();
    while (await runner.runNext()) {
      const last = await t.state.one<{ export_id: string }>(
        `SELECT export_id FROM exports WHERE status = 'succeeded' ORDER BY finished_at DESC, export_id DESC LIMIT 1`,
      );
      order.push(last?.export_id ?? '');
    }
    expect(order.indexOf(ofB.id)).toBeLessThan(order.indexOf(ofA[2]!.id));
    expect(order.indexOf(ofB.id)).toBeGreaterThanOrEqual(0);
  });

  it('with concurrency 2 the worker runs two jobs at once, and never more', async () => {
    const keys = await Promise.all([1, 2, 3].map(async () => (await t.keyWithAccount({ plan: 'entry' })).key));
    const jobs = await Promise.all(keys.map((k) => queue(k)));
    let running = 0;
    let most = 0;
    // the disk check opens every job: holding it a moment makes jobs that run together overlap for sure
    const freeBytes = async (): Promise<number> => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 300));
      running--;
      return Number.MAX_SAFE_INTEGER;
    };
    const runner = worker({ concurrency: 2, pollMs: 20 }, { freeBytes });
    runner.start();
    try {
      await eventually(
        async () => (await Promise.all(jobs.map((j, i) => job(keys[i]!, j.id)))).every((j) => j.status === 'succeeded'),
        20_000,
        'the three exports to succeed',
      );
    } finally {
      await runner.stop();
    }
    expect(most).toBe(2);
  });
});
