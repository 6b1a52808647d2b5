import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureDemoAccount } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import { Store } from '../data/store.js';

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
