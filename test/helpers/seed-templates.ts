import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { inject } from 'vitest';
import { newId } from '../../data/ids.js';
import { seedDemoData } from '../../data/seed/demo-generator.js';
import { Store } from '../../data/store.js';
import { eventually } from './eventually.js';

/** What a demo seed is made of: the same three give the same store. */
export interface DemoSeed {
  creators: number;
  seed: number;
  asOf: string;
}

/** How long a test process waits for a seed another one is making. */
const WAIT_MS = 120_000;

/**
 * Writes a store seeded with `spec` at `dbPath` (a file not there yet) and answers
 * the id of the demo account its campaigns belong to; the caller writes that
 * account into the state. Each seed is made once per run, by the first test process
 * that asks for it, and copied after: a closed DuckDB file copied is the same store,
 * and dozens of test files ask for the same few seeds.
 */
export async function copySeededStore(spec: DemoSeed, dbPath: string): Promise<string> {
  const meta = await copyTemplate(`demo-${spec.creators}-${spec.seed}-${spec.asOf}`, dbPath, async (path) => ({
    demoAccountId: await seedAt(spec, path),
  }));
  return meta?.demoAccountId ?? seedAt(spec, dbPath);
}

/**
 * Writes an empty store with every migration applied at `dbPath` (a file not there
 * yet), a copy of the run's one; without the run's folder it writes nothing and
 * `Store.open` migrates the new file as it would anyway.
 */
export async function copyMigratedStore(dbPath: string): Promise<void> {
  await copyTemplate('migrated', dbPath, async (path) => {
    await (await Store.open(path, { threads: 2 })).close();
    return {};
  });
}

/** Copies the run's template `name` to `dbPath`, making it with `make` first if no test process has; null without the run's folder. */
async function copyTemplate<M extends object>(
  name: string,
  dbPath: string,
  make: (path: string) => Promise<M>,
): Promise<M | null> {
  mkdirSync(dirname(dbPath), { recursive: true });
  // provided by test/helpers/seed-templates-global-setup.ts; without it (another config) the caller makes the store in place
  const dir = inject('seedTemplatesDir') as string | undefined;
  if (!dir) return null;
  const template = join(dir, `${name}.duckdb`);
  const ready = join(dir, `${name}.json`);
  if (!existsSync(ready)) await makeTemplate(name, template, ready, make);
  copyFileSync(template, dbPath);
  return JSON.parse(readFileSync(ready, 'utf8')) as M;
}

/** Seeds a store at `path` and closes it; answers the demo account id it used. */
async function seedAt(spec: DemoSeed, path: string): Promise<string> {
  const demoAccountId = newId('acct');
  const store = await Store.open(path, { threads: 2 });
  try {
    await seedDemoData(store, { ...spec, demoAccountId });
  } finally {
    await store.close();
  }
  return demoAccountId;
}

/** Makes the template under a lock folder; a process that finds the lock taken waits for the other's template instead. */
async function makeTemplate(
  name: string,
  template: string,
  ready: string,
  make: (path: string) => Promise<object>,
): Promise<void> {
  const lock = `${template}.lock`;
  try {
    mkdirSync(lock);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    await eventually(
      () => existsSync(ready) || !existsSync(lock),
      WAIT_MS,
      `the ${name} store another test process makes`,
    );
    if (!existsSync(ready)) throw new Error(`the ${name} store failed in another test process`);
    return;
  }
  try {
    const work = join(lock, 'cds.duckdb');
    const meta = await make(work);
    // closing checkpoints: the file is the whole store
    if (existsSync(`${work}.wal`)) throw new Error(`the ${name} store kept a WAL after closing`);
    renameSync(work, template);
    writeFileSync(`${ready}.tmp`, JSON.stringify(meta));
    renameSync(`${ready}.tmp`, ready);
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
