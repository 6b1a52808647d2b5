import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createExport,
  createExportWorker,
  ExportLeaseLostError,
  getExport,
  runExportJob,
  type ExportFormat,
  type ExportWorker,
} from '../../connectors/exports/index.js';
import { failExportJob } from '../../connectors/exports/export.engine.js';
import * as q from '../../connectors/exports/export-job.queries.js';
import { PgState } from '../../data/state/pg-state.js';
import type { StateDb } from '../../data/state/state-db.js';
import { itInClusterMode } from '../helpers/state.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { PlanCatalogue } from '../../data/plans/plan.service.js';

/**
 * Export workers in several processes (cluster mode): each has its own pool on
 * the shared PostgreSQL state and reads the same analytical store. In the
 * embedded project both workers share the one store (one process), which
 * still checks that two claimers never take the same job there.
 */
let t: TestStore;
let second: StateDb;
let caller: { accountId: string; plan: 'enterprise' };
const silent = pino({ level: 'silent' });

beforeAll(async () => {
  t = await createTestStore({ creators: 2000 });
  caller = { accountId: t.demoAccountId as string, plan: 'enterprise' };
  second = t.databaseUrl
    ? await PgState.open(t.databaseUrl, { applicationName: 'cds test second worker', max: 4 })
    : t.state;
});
afterAll(async () => {
  if (second instanceof PgState) await second.close();
  await t.cleanup();
});

/** A logger that records which exports this worker reports as succeeded. */
function recordingLogger(succeeded: string[]): pino.Logger {
  const sink = new Writable({
    write(line: Buffer, _encoding, done) {
      const entry = JSON.parse(line.toString('utf8')) as { msg?: string; export_id?: string };
      if (entry.msg === 'export succeeded' && entry.export_id) succeeded.push(entry.export_id);
      done();
    },
  });
  return pino({ level: 'info' }, sink);
}

async function drain(worker: ExportWorker): Promise<number> {
  let ran = 0;
  while (await worker.runNext()) ran++;
  return ran;
}

async function queue(n: number): Promise<string[]> {
  const formats: ExportFormat[] = ['csv', 'json', 'ndjson', 'parquet', 'arrow'];
  const niches = ['tech', 'beauty', 'food', 'music', 'pets', 'art'];
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const job = await createExport(t.store, t.state, new PlanCatalogue(t.state), caller, {
      source: 'search',
      filters: { niche: niches[i % niches.length] as string },
      format: formats[i % formats.length] as ExportFormat,
    });
    ids.push(job.id);
  }
  return ids;
}

async function completedEvents(exportId: string): Promise<number> {
  const row = await t.state.one<{ n: number }>(
    `SELECT count(*) AS n FROM events
    WHERE type = 'export.completed' AND (payload->>'export_id') = ?`,
    [exportId],
  );
  return row?.n ?? 0;
}

describe('export workers on separate state connections', () => {
  it('two workers drain one queue together: every job succeeds exactly once, none is run by both', async () => {
    const ids = await queue(16);
    const byFirst: string[] = [];
    const bySecond: string[] = [];
    const first = createExportWorker({
      store: t.store,
      state: t.state,
      config: t.config,
      logger: recordingLogger(byFirst),
    });
    const other = createExportWorker({
      store: t.store,
      state: second,
      config: t.config,
      logger: recordingLogger(bySecond),
    });
    const [ranFirst, ranSecond] = await Promise.all([drain(first), drain(other)]);

    expect(ranFirst + ranSecond).toBe(ids.length);
    expect(ranFirst).toBeGreaterThan(0);
    expect(ranSecond).toBeGreaterThan(0);
    expect(byFirst.filter((id) => bySecond.includes(id))).toEqual([]);
    expect([...byFirst, ...bySecond].sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const job = await getExport(second, caller.accountId, id);
      expect(job.status, `${id}: ${job.error ?? ''}`).toBe('succeeded');
      expect(await completedEvents(id)).toBe(1);
      expect(existsSync(join(t.config.exportsDir, `${id}.${job.format === 'arrow' ? 'arrows' : job.format}`))).toBe(
        true,
      );
    }
    expect(readdirSync(t.config.exportsDir).filter((f) => f.endsWith('.part'))).toEqual([]);
  });

  it('claims racing on both connections each take a different job, and take each job once', async () => {
    const ids = await queue(8);
    const now = new Date();
    const claim = (db: StateDb, i: number): Promise<q.ClaimedExport | undefined> =>
      q.claimNextQueued(db, { attemptId: `racer${i}`, now, leaseUntil: new Date(now.getTime() + 60_000) });
    const claims = await Promise.all(Array.from({ length: 12 }, (_, i) => claim(i % 2 === 0 ? t.state : second, i)));
    const taken = claims.flatMap((c) => (c ? [c.export_id] : []));
    expect(taken.sort()).toEqual([...ids].sort());
    const rows = await t.state.all<{ attempt_id: string }>(`SELECT attempt_id FROM exports WHERE status = 'running'`);
    expect(new Set(rows.map((r) => r.attempt_id)).size).toBe(ids.length);
    await t.state.run(`UPDATE exports SET status = 'failed' WHERE status = 'running'`);
  });

  itInClusterMode(
    'a claim skips a job another worker is claiming at that moment instead of waiting for it',
    async () => {
      const ids = await queue(2);
      const now = new Date();
      const claim = (attemptId: string) => ({ attemptId, now, leaseUntil: new Date(now.getTime() + 60_000) });
      const [mine, theirs] = await t.state.transaction(async (tx) => {
        const held = await q.claimNextQueued(tx, claim('holder1'));
        // the first claim's transaction is still open: its row is locked
        return [held, await q.claimNextQueued(second, claim('other1'))];
      });
      expect([mine?.export_id, theirs?.export_id]).toEqual(ids);
      await t.state.run(`UPDATE exports SET status = 'failed' WHERE status = 'running'`);
    },
  );

  it('a job whose worker died is run again by another worker, and the dead attempt’s late writes change nothing', async () => {
    const [id] = (await queue(1)) as [string];
    const claimedAt = new Date();
    // a worker claimed it with a lease that has run out, and never came back
    const dead = await q.claimNextQueued(t.state, {
      attemptId: 'deadworker1',
      now: claimedAt,
      leaseUntil: new Date(claimedAt.getTime() - 1),
    });
    expect(dead?.export_id).toBe(id);

    const worker = createExportWorker({ store: t.store, state: second, config: t.config, logger: silent });
    expect(await worker.recover()).toBe(1);
    expect(await worker.runNext()).toBe(true);
    const done = await getExport(t.state, caller.accountId, id);
    expect(done.status).toBe('succeeded');

    const attempt = { export_id: id, attempt_id: 'deadworker1' };
    await q.setProgress(t.state, attempt, 40);
    expect(await q.renewLease(t.state, attempt, new Date(Date.now() + 60_000))).toBe(false);
    await failExportJob(
      t.state,
      { ...attempt, account_id: caller.accountId, format: done.format },
      'late failure',
      new Date(),
    );
    expect(await getExport(t.state, caller.accountId, id)).toEqual(done);
    expect(await completedEvents(id)).toBe(1);
  });

  it('a worker that lost its job before publishing writes no file, no success and no event', async () => {
    const [id] = (await queue(1)) as [string];
    const now = new Date();
    const claimed = await q.claimNextQueued(t.state, {
      attemptId: 'slowworker1',
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
    });
    expect(claimed?.export_id).toBe(id);
    // its lease ran out meanwhile and another attempt took the job
    await t.state.run(`UPDATE exports SET attempt_id = 'newowner1' WHERE export_id = ?`, [id]);
    await expect(
      runExportJob({ store: t.store, state: second, config: t.config }, claimed as q.ClaimedExport),
    ).rejects.toBeInstanceOf(ExportLeaseLostError);
    const job = await getExport(t.state, caller.accountId, id);
    expect([job.status, job.sha256]).toEqual(['running', null]);
    expect(readdirSync(t.config.exportsDir).filter((f) => f.startsWith(id))).toEqual([]);
    expect(await completedEvents(id)).toBe(0);
    await t.state.run(`UPDATE exports SET status = 'failed' WHERE export_id = ?`, [id]);
  });

  itInClusterMode('a job whose lease still runs is neither taken nor re-queued by another worker', async () => {
    const [id] = (await queue(1)) as [string];
    const now = new Date();
    await q.claimNextQueued(t.state, { attemptId: 'liveworker1', now, leaseUntil: new Date(now.getTime() + 60_000) });
    const worker = createExportWorker({ store: t.store, state: second, config: t.config, logger: silent });
    expect(await worker.recover()).toBe(0);
    expect(await worker.runNext()).toBe(false);
    expect((await getExport(t.state, caller.accountId, id)).status).toBe('running');
    // once the lease has run out, the next claim takes it without a restart
    const later = createExportWorker(
      { store: t.store, state: second, config: t.config, logger: silent },
      { now: () => new Date(Date.now() + 120_000) },
    );
    expect(await later.runNext()).toBe(true);
    expect((await getExport(t.state, caller.accountId, id)).status).toBe('succeeded');
  });
});
