import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig, type Config, type Env } from '../../config/config.js';
import { ensureDemoAccount } from '../../data/seed/demo-account.js';
import { seedDemoData } from '../../data/seed/demo-generator.js';
import { Store } from '../../data/store.js';

export interface TestStore {
  store: Store;
  config: Readonly<Config>;
  dir: string;
  demoAccountId: string | null;
  cleanup: () => Promise<void>;
}

/** The day test data runs up to, fixed so tests are deterministic. */
export const TEST_AS_OF = '2026-11-21';

/**
 * A fresh store in its own temp folder (never shared between test files),
 * optionally seeded with a small deterministic demo dataset.
 */
export async function createTestStore(options: { creators?: number; seed?: number; env?: Env } = {}): Promise<TestStore> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-test-'));
  const config = testConfig(dir, options.env);
  const store = await Store.open(config.dbPath, { threads: 2 });
  let demoAccountId: string | null = null;
  if (options.creators) {
    demoAccountId = (await ensureDemoAccount(store)).account_id;
    await seedDemoData(store, { creators: options.creators, seed: options.seed ?? 42, asOf: TEST_AS_OF, demoAccountId });
  }
  return {
    store, config, dir, demoAccountId,
    cleanup: async () => {
      await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
