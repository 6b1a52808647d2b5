import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testConfig } from '../../config/config.js';
import { Store } from '../../data/store.js';
import { StoreWalReplayError } from '../../data/store-recovery.js';
import { runCli } from '../helpers/cli.js';
import { copyMigratedStore } from '../helpers/seed-templates.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cds-wal-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/**
 * A store as a crash leaves it when DuckDB cannot replay its WAL: a migrated store (the run's template)
 * whose WAL holds an ALTER TABLE ADD COLUMN on a table with a `current_timestamp`
 * default and a committed row after it. The files are copied while the database is
 * still open, which is what a kill -9 leaves on disk.
 */
async function crashedStore(name: string): Promise<string> {
  const live = join(dir, `${name}-live`, 'cds.duckdb');
  await copyMigratedStore(live);
  const db = await DuckDBInstance.create(live);
  const c = await db.connect();
  await c.run('CREATE TABLE notes (id INTEGER, created_at TIMESTAMP DEFAULT current_timestamp)');
  await c.run('CHECKPOINT');
  await c.run('ALTER TABLE notes ADD COLUMN body VARCHAR');
  await c.run(`INSERT INTO notes (id, body) VALUES (1, 'committed after the ALTER')`);
  const crashed = testConfig(join(dir, name)).dbPath;
  mkdirSync(dirname(crashed), { recursive: true });
  copyFileSync(live, crashed);
  copyFileSync(`${live}.wal`, `${crashed}.wal`);
  c.closeSync();
  db.closeSync();
  return crashed;
}

/** A file's SHA-256: comparing megabytes of store file byte by byte through toEqual takes a minute. */
const digest = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

const env = (name: string) => ({
  PATH: process.env['PATH'] ?? '',
  CDS_DATA_DIR: join(dir, name),
  CDS_LOG_LEVEL: 'silent',
});

it('cds store check reports a store whose WAL does not replay directly, without changing either file', async () => {
  const path = await crashedStore('check');
  const before = [digest(path), digest(`${path}.wal`)];
  const result = await runCli(['store', 'check', '--json'], { env: env('check') });
  expect(result.code).toBe(0);
  const report = JSON.parse(result.stdout) as Record<string, unknown>;
  expect(report).toMatchObject({ path, state: 'wal_recovery_needed', migrations_pending: [] });
  expect(report['wal_bytes']).toBeGreaterThan(0);
  expect((report['migrations_applied'] as unknown[]).length).toBeGreaterThan(0);
  expect([digest(path), digest(`${path}.wal`)]).toEqual(before);
});

it('a store whose WAL does not replay directly opens with every committed transaction kept, and says so', async () => {
  const path = await crashedStore('recover');
  const notices: string[] = [];
  const store = await Store.open(path, { threads: 1, onRecovered: (m) => notices.push(m) });
  try {
    expect(await store.all('SELECT id, body FROM notes')).toEqual([{ id: 1, body: 'committed after the ALTER' }]);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/write-ahead log/);
  } finally {
    await store.close();
  }
  const report = JSON.parse((await runCli(['store', 'check', '--json'], { env: env('recover') })).stdout) as Record<
    string,
    unknown
  >;
  expect(report['state']).toBe('ok');
});

it('a read-only open of such a store fails with what happened and what to do, and changes nothing', async () => {
  const path = await crashedStore('readonly');
  const wal = readFileSync(`${path}.wal`);
  const error = await Store.open(path, { readOnly: true }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreWalReplayError);
  expect((error as Error).message).toMatch(
    /write-ahead log .* could not be replayed.*Nothing was changed.*cds store check/s,
  );
  expect(readFileSync(`${path}.wal`)).toEqual(wal);
});

it('cds store check on a healthy store lists the migrations and none pending; on no store says so', async () => {
  await copyMigratedStore(testConfig(join(dir, 'healthy')).dbPath);
  const healthy = await runCli(['store', 'check'], { env: env('healthy') });
  expect(healthy.code).toBe(0);
  expect(healthy.stdout).toMatch(/state: ok/);
  expect(healthy.stdout).toMatch(/migrations pending: none/);
  const missing = await runCli(['store', 'check', '--json'], { env: env('nothing') });
  expect(JSON.parse(missing.stdout)).toMatchObject({ state: 'missing', size_bytes: 0 });
});
