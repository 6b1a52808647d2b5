import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { RecordBatchStreamReader } from 'apache-arrow';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExport, createExportWorker, getExport, type ExportJob } from '../../connectors/exports/index.js';
import { eventually } from '../helpers/eventually.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { PlanCatalogue } from '../../data/plans/plan.service.js';

let t: TestStore;
let caller: { accountId: string; plan: 'enterprise' };
const logger = pino({ level: 'silent' });

/** Members 1..n of a list (most ids name no creator: only the seeded ones are exported), a second apart. */
async function insertMembers(listId: string, n: number): Promise<void> {
  const sql =
    t.state.dialect === 'postgres'
      ? `INSERT INTO list_members (list_id, creator_id, added_at) SELECT ?, i, TIMESTAMP '2026-01-01' + i * INTERVAL '1 second' FROM generate_series(1, ?::INTEGER) i`
      : `INSERT INTO list_members (list_id, creator_id, added_at) SELECT ?, i, TIMESTAMP '2026-01-01' + INTERVAL (i) SECOND FROM range(1, ?::INTEGER + 1) r(i)`;
  await t.state.run(sql, [listId, n]);
}

beforeAll(async () => {
  t = await createTestStore({ creators: 2000 });
  caller = { accountId: t.demoAccountId as string, plan: 'enterprise' };
});
afterAll(async () => t.cleanup());

describe('the export worker', () => {
  it('when started it picks up queued jobs by itself, and stop waits for the one in flight', async () => {
    const worker = createExportWorker({ store: t.store, state: t.state, config: t.config, logger }, { pollMs: 20 });
    worker.start();
    const job = await createExport(t.store, t.state, new PlanCatalogue(t.state), caller, {
      source: 'search',
      filters: { niche: 'tech' },
      format: 'parquet',
    });
    await eventually(
      async () => (await getExport(t.state, caller.accountId, job.id)).status === 'succeeded',
      20_000,
      'the export to succeed',
    );
    await worker.stop();
    expect((await getExport(t.state, caller.accountId, job.id)).progress).toBe(100);
  });

  it('back-to-back jobs all succeed: a progress update still in flight never conflicts with the final write', async () => {
    const worker = createExportWorker({ store: t.store, state: t.state, config: t.config, logger });
    const formats = ['csv', 'json', 'ndjson', 'parquet', 'arrow'] as const;
    const statuses: string[] = [];
    for (let i = 0; i < 40; i++) {
      const job = await createExport(t.store, t.state, new PlanCatalogue(t.state), caller, {
        source: 'search',
        filters: {},
        format: formats[i % formats.length]!,
      });
      await worker.runNext();
      statuses.push((await getExport(t.state, caller.accountId, job.id)).status);
    }
    expect(statuses.filter((s) => s !== 'succeeded')).toEqual([]);
  });

  it('a job a crash left running is re-queued on start, its half-written file removed, and then completed', async () => {
    const job = await createExport(t.store, t.state, new PlanCatalogue(t.state), caller, {
      source: 'search',
      filters: { niche: 'art' },
      format: 'csv',
    });
    await t.state.run(`UPDATE exports SET status = 'running', progress = 40 WHERE export_id = ?`, [job.id]);
    mkdirSync(t.config.exportsDir, { recursive: true });
    const part = join(t.config.exportsDir, `${job.id}.csv.part`);
    writeFileSync(part, 'handle,platf');
    const worker = createExportWorker({ store: t.store, state: t.state, config: t.config, logger });
    expect(await worker.recover()).toBe(1);
    expect(existsSync(part)).toBe(false);
    expect((await getExport(t.state, caller.accountId, job.id)).status).toBe('queued');
    expect(await worker.runNext()).toBe(true);
    const done = await getExport(t.state, caller.accountId, job.id);
    expect(done.status).toBe('succeeded');
    expect(readFileSync(join(t.config.exportsDir, `${job.id}.csv`), 'utf8').startsWith('handle,platform,')).toBe(true);
  });

  it('when the file cannot be written the job fails with a message that leaks nothing, and leaves no file', async () => {
    const blocked = join(t.dir, 'not-a-folder');
    writeFileSync(blocked, 'x');
    const config = { ...t.config, exportsDir: join(blocked, 'exports') };
    const job = await createExport(t.store, t.state, new PlanCatalogue(t.state), caller, {
      source: 'search',
      filters: { niche: 'home' },
      format: 'json',
    });
    const worker = createExportWorker({ store: t.store, state: t.state, config, logger }, { attempts: 1 });
    expect(await worker.runNext()).toBe(true);
    const failed = await getExport(t.state, caller.accountId, job.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/internal error/);
    expect(failed.error).not.toContain(blocked);
    expect(failed.download_url).toBeNull();
    const event = await t.state.one<{ payload: string }>(
      `SELECT payload::VARCHAR AS payload FROM events
      WHERE type = 'export.completed' AND (payload->>'export_id') = ?`,
      [job.id],
    );
    expect(JSON.parse(event?.payload ?? '{}')).toMatchObject({
      status: 'failed',
      error: failed.error,
      download_url: null,
    });
  });

  it('a campaign export has one row per creator per day of that campaign, from the account’s own campaign', async () => {
    const campaign = await t.store.one<{
      campaign_id: string;
      n: number;
    }>(
      `SELECT campaign_id, count(*) AS n FROM campaign_metrics
      WHERE campaign_id IN (SELECT campaign_id FROM campaigns WHERE account_id = ?)
      GROUP BY campaign_id ORDER BY campaign_id LIMIT 1`,
      [caller.accountId],
    );
    const job = await createExport(t.store, t.state, new PlanCatalogue(t.state), caller, {
      source: 'campaign',
      campaign_id: campaign?.campaign_id ?? '',
      format: 'ndjson',
    });
    expect(job.row_count).toBe(campaign?.n);
    await createExportWorker({ store: t.store, state: t.state, config: t.config, logger }).runNext();
    const rows = readFileSync(join(t.config.exportsDir, `${job.id}.ndjson`), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rows).toHaveLength(campaign?.n ?? -1);
    const expected = await t.store.all<{ impressions: number; spend: number }>(
      `SELECT m.impressions, m.spend FROM campaign_metrics m
      JOIN creators c USING (creator_id) WHERE m.campaign_id = ? ORDER BY m.date, c.platform, c.handle`,
      [campaign?.campaign_id ?? ''],
    );
    expect(rows.map((r) => [r['impressions'], r['spend']])).toEqual(expected.map((e) => [e.impressions, e.spend]));
    expect(Object.keys(rows[0] ?? {})).toEqual(
      expect.arrayContaining(['campaign_id', 'date', 'platform', 'handle', 'clicks', 'revenue']),
    );
  });

  it('a list export keeps the order creators were added and ranked audience columns match the store', async () => {
    // the list is service state, its creators are in the store: the test writes each where it lives
    await t.state.run(
      `INSERT INTO lists (list_id, account_id, name, created_at, updated_at) VALUES ('lst_test1', ?, 'l', ?::TIMESTAMP, ?::TIMESTAMP)`,
      [caller.accountId, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'],
    );
    const ids = (
      await t.store.all<{ creator_id: number }>('SELECT creator_id FROM creators WHERE creator_id % 97 = 0')
    ).map((r) => r.creator_id);
    const addedAt = (id: number): string => new Date(Date.UTC(2026, 0, 1) + id * 60_000).toISOString();
    for (const id of ids) {
      await t.state.run(
        `INSERT INTO list_members (list_id, creator_id, added_at) VALUES ('lst_test1', ?, ?::TIMESTAMP)`,
        [id, addedAt(id)],
      );
    }
    const fields = [
      'handle',
      'platform',
      'added_at',
      'audience_top_country_1',
      'audience_top_country_2',
      'audience_top_country_pct_2',
      'audience_female_pct',
    ];
    const job: ExportJob = await createExport(t.store, t.state, new PlanCatalogue(t.state), caller, {
      source: 'list',
      list_id: 'lst_test1',
      format: 'json',
      fields,
    });
    expect(job.row_count).toBe(ids.length);
    await createExportWorker({ store: t.store, state: t.state, config: t.config, logger }).runNext();
    const rows = JSON.parse(readFileSync(join(t.config.exportsDir, `${job.id}.json`), 'utf8')) as Array<
      Record<string, unknown>
    >;
    const expected = await t.store.all<Record<string, unknown>>(
      `WITH r AS (
        SELECT creator_id, key, pct, row_number() OVER (PARTITION BY creator_id ORDER BY pct DESC, key) AS rn FROM audience WHERE dimension = 'country')
      SELECT c.creator_id, c.handle,
        (SELECT key FROM r WHERE r.creator_id = c.creator_id AND rn = 2) AS c2, (SELECT pct FROM r WHERE r.creator_id = c.creator_id AND rn = 2) AS p2,
        (SELECT pct FROM audience a WHERE a.creator_id = c.creator_id AND dimension = 'gender' AND key = 'female') AS f
      FROM creators c WHERE list_contains(?::INTEGER[], c.creator_id) ORDER BY c.creator_id`,
      [ids],
    );
    expect(rows.length).toBe(expected.length);
    // added in creator id order (a minute apart), so the export's order is the creator ids' order
    expect(
      rows.map((r) => [
        r['handle'],
        r['added_at'],
        r['audience_top_country_2'],
        r['audience_top_country_pct_2'],
        r['audience_female_pct'],
      ]),
    ).toEqual(expected.map((e) => [e['handle'], addedAt(e['creator_id'] as number), e['c2'], e['p2'], e['f']]));
    expect(Object.keys(rows[0] ?? {})).toEqual(fields);
  });

  it('a list of 100,000 members is counted and exported from members read out of the state', async () => {
    await t.state.run(
      `INSERT INTO lists (list_id, account_id, name, created_at, updated_at) VALUES ('lst_big', ?, 'big', ?::TIMESTAMP, ?::TIMESTAMP)`,
      [caller.accountId, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z'],
    );
    await insertMembers('lst_big', 100_000);
    const known = await t.store.one<{ n: number }>(
      'SELECT count(*) AS n FROM creators WHERE creator_id BETWEEN 1 AND 100000',
    );
    const started = performance.now();
    const job = await createExport(t.store, t.state, new PlanCatalogue(t.state), caller, {
      source: 'list',
      list_id: 'lst_big',
      format: 'csv',
      fields: ['handle', 'added_at'],
    });
    expect(job.row_count).toBe(known?.n);
    expect(await createExportWorker({ store: t.store, state: t.state, config: t.config, logger }).runNext()).toBe(true);
    const done = await getExport(t.state, caller.accountId, job.id);
    expect(done.status).toBe('succeeded');
    expect(done.row_count).toBe(known?.n);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  it('an Arrow export of many batches streams every row, in order, as one valid IPC stream', async () => {
    // more rows than one DuckDB chunk (2,048): copies of the seeded creators under new ids and handles
    await t.store.run(
      `INSERT INTO creators SELECT * REPLACE (creator_id + 100000 AS creator_id, handle || '_copy' AS handle) FROM creators`,
    );
    const job = await createExport(t.store, t.state, new PlanCatalogue(t.state), caller, {
      source: 'search',
      filters: {},
      format: 'arrow',
      fields: ['handle', 'followers', 'updated_at'],
    });
    await createExportWorker({ store: t.store, state: t.state, config: t.config, logger }).runNext();
    const reader = RecordBatchStreamReader.from(readFileSync(join(t.config.exportsDir, `${job.id}.arrows`)));
    let batches = 0;
    const handles: string[] = [];
    for (const batch of reader) {
      batches++;
      for (const row of batch) handles.push(String(row.toJSON()['handle']));
    }
    const expected = await t.store.all<{ handle: string }>(
      'SELECT handle FROM creators ORDER BY followers DESC, creator_id',
    );
    expect(batches).toBeGreaterThan(1);
    expect(handles).toEqual(expected.map((e) => e.handle));
    expect((await getExport(t.state, caller.accountId, job.id)).row_count).toBe(expected.length);
  });
});
