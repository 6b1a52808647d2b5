import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, expect, it } from 'vitest';
import { testConfig } from '../../config/config.js';
import { MIGRATIONS, runMigrations } from '../../data/migrations/index.js';
import { Store, wrap } from '../../data/store.js';
import { childScript } from '../helpers/child-script.js';

const ROOT = join(import.meta.dirname, '../..');
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cds-store-crash-'));
  dirs.push(dir);
  return dir;
}

/** A creators CSV of `rows` new creators whose handles start with `prefix`. */
async function writeCreators(path: string, prefix: string, rows: number): Promise<void> {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  await c.run(`COPY (SELECT 'tiktok' AS platform, '@${prefix}' || i AS handle, 'Name ' || i AS display_name, NULL AS bio, 'tech' AS niche,
      'US' AS country, NULL AS city, 'en' AS language, 1000 + i AS followers, NULL AS "following", NULL AS posts_count, false AS verified,
      TIMESTAMP '2026-11-20 10:00:00' AS updated_at FROM range(${rows}) t(i)) TO '${path}' (HEADER)`);
  c.closeSync();
  db.closeSync();
}

/** Runs the child until it prints `until`, then kills it with SIGKILL. */
async function killChildAt(dataDir: string, until: string, files: string[]): Promise<string> {
  const child = spawn(
    process.execPath,
    [await childScript('test/fixtures/store/kill-point.child.ts'), dataDir, ...files],
    {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes(`${until}\n`)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`child exited ${code} before '${until}': ${output} ${errors}`)));
  });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return output;
}

/** Makes the store as the release before migration `version` left it: every earlier migration applied and checkpointed. */
async function previousReleaseStore(dbPath: string, version: number): Promise<void> {
  const db = await DuckDBInstance.create(dbPath);
  const c = await db.connect();
  await runMigrations(
    wrap(c),
    MIGRATIONS.filter((m) => m.version < version),
  );
  await c.run('CHECKPOINT');
  c.closeSync();
  db.closeSync();
}

async function countPrefix(dbPath: string, prefix: string): Promise<number> {
  const store = await Store.open(dbPath, { threads: 2 });
  try {
    return (
      (
        await store.one<{ n: number }>('SELECT count(*) AS n FROM creators WHERE starts_with(handle, ?)', [
          `@${prefix}`,
        ])
      )?.n ?? -1
    );
  } finally {
    await store.close();
  }
}

/** The first migration that changes a table with ALTER TABLE: an upgrade across it replays ALTERs from the WAL. */
const FIRST_ALTER = Math.min(
  ...MIGRATIONS.filter((m) => m.statements.some((s) => /ALTER TABLE/i.test(s))).map((m) => m.version),
);
/** How each case's store starts: the release before which migration made it (null: a fresh store). */
const STARTS = {
  fresh: null,
  'upgraded from the previous migration version': MIGRATIONS.at(-1)!.version,
  'upgraded across every ALTER migration': FIRST_ALTER,
} as const;

for (const [start, before] of Object.entries(STARTS)) {
  it(`a store (${start}) killed right after migrating opens again with every committed row`, async () => {
    const dir = tempDir();
    const dbPath = testConfig(dir).dbPath;
    if (before !== null) await previousReleaseStore(dbPath, before);
    const committed = join(dir, 'committed.csv');
    await writeCreators(committed, 'kept', 50);
    await killChildAt(dir, 'committed', [committed]);
    expect(await countPrefix(dbPath, 'kept')).toBe(50);
  });

  it(`a store (${start}) killed in the middle of an ingest opens again with every committed row and none of the killed load`, async () => {
    const dir = tempDir();
    const dbPath = testConfig(dir).dbPath;
    if (before !== null) await previousReleaseStore(dbPath, before);
    const committed = join(dir, 'committed.csv');
    const big = join(dir, 'big.csv');
    await writeCreators(committed, 'kept', 50);
    await writeCreators(big, 'killed', 400_000);
    const output = await killChildAt(dir, 'loading', [committed, big]);
    expect(output).not.toContain('done');
    expect(await countPrefix(dbPath, 'kept')).toBe(50);
    expect(await countPrefix(dbPath, 'killed')).toBe(0);
  });
}
