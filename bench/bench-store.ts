import { constants, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ensureDemoAccount } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import { Store, type StoreOptions } from '../data/store.js';

let migrated: Promise<string> | undefined;

/** This process's empty store with every migration applied, made on first use and removed when the process exits. */
function migratedTemplate(): Promise<string> {
  migrated ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cds-bench-migrated-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'cds.duckdb');
    // closing checkpoints: the file alone is the whole store
    await (await Store.open(path, { threads: 2 })).close();
    return path;
  })();
  return migrated;
}

/**
 * Opens the store at `dbPath`; a new one starts as a copy of an empty migrated
 * store: what `Store.open` makes of a new file, without its seconds of migrations,
 * which no figure measures and which the benches open new stores by the dozen for.
 */
export async function openBenchStore(dbPath: string, options: StoreOptions = {}): Promise<Store> {
  if (!existsSync(dbPath)) {
    mkdirSync(dirname(dbPath), { recursive: true });
    copyFileSync(await migratedTemplate(), dbPath, constants.COPYFILE_EXCL);
  }
  return Store.open(dbPath, options);
}

/**
 * Makes sure a bench store with `creators` demo creators exists at `dbPath`:
 * copies the bench's shared `seed-N` store when there is one (seeding 1M takes
 * minutes), else seeds one there. `area` prefixes the log lines.
 */
export async function ensureBenchStore(
  dbPath: string,
  creators: number,
  log: (line: string) => void,
  area: string,
): Promise<void> {
  if (existsSync(dbPath)) return;
  mkdirSync(dirname(dbPath), { recursive: true });
  const seeded = join(dirname(dirname(dbPath)), `seed-${creators}`, 'cds.duckdb');
  if (existsSync(seeded)) {
    log(`${area}: copying ${seeded}`);
    copyFileSync(seeded, dbPath);
    return;
  }
  log(`${area}: seeding ${creators} creators into ${dbPath}`);
  const store = await Store.open(dbPath);
  try {
    const account = await ensureDemoAccount(store);
    await seedDemoData(store, { creators, seed: 42, asOf: '2026-11-21', demoAccountId: account.account_id });
  } finally {
    await store.close();
  }
}
