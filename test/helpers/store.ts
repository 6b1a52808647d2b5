import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig, type Config, type Env } from '../../config/config.js';
import { ensureDemoAccount } from '../../data/seed/demo-account.js';
import { seedDemoData } from '../../data/seed/demo-generator.js';
import { relayOutbox, type RelayResult } from '../../data/state/outbox-relay.js';
import type { StateDb } from '../../data/state/state-db.js';
import { Store } from '../../data/store.js';
import { createTestState } from './state.js';

export interface TestStore {
  /** The analytical store. */
  store: Store;
  /** The service state: `store` itself, or a PostgreSQL database of this file's own in the cluster-mode project. */
  state: StateDb;
  /** The cluster-mode project's database URL; null in the embedded project. */
  databaseUrl: string | null;
  /** Copies the store's outbox (events, run records) into the PostgreSQL state, as the writer's relay does; a no-op when embedded. */
  relay(): Promise<RelayResult>;
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
  const store = await Store.open(testConfig(dir, options.env).dbPath, { threads: 2 });
  const testState = await createTestState(store);
  const { state, databaseUrl } = testState;
  const config = testConfig(dir, { ...(databaseUrl ? { CDS_DATABASE_URL: databaseUrl } : {}), ...options.env });
  let demoAccountId: string | null = null;
  if (options.creators) {
    demoAccountId = (await ensureDemoAccount(state)).account_id;
    await seedDemoData(store, { creators: options.creators, seed: options.seed ?? 42, asOf: TEST_AS_OF, demoAccountId });
  }
  return {
    store, state, databaseUrl, config, dir, demoAccountId,
    relay: () => relayOutbox(store, state),
    cleanup: async () => {
      await testState.close().catch(() => undefined);
      await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
