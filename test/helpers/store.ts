import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig, type Config, type Env } from '../../config/config.js';
import { insertAccount } from '../../data/keys/key.queries.js';
import { DEMO_ACCOUNT_NAME } from '../../data/seed/demo-account.js';
import { relayOutbox, type RelayResult } from '../../data/state/outbox-relay.js';
import type { StateDb } from '../../data/state/state-db.js';
import { type Queryable, Store, type SqlValue } from '../../data/store.js';
import { CONTENT_LISTS, contentFingerprintSql, type ContentList } from '../../data/derive/content-metrics.js';
import { copyMigratedStore, copySeededStore } from './seed-templates.js';
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
 * migrated, optionally seeded with a small deterministic demo dataset: a copy
 * of the run's one store of that kind (test/helpers/seed-templates.ts).
 */
export async function createTestStore(
  options: { creators?: number; seed?: number; env?: Env } = {},
): Promise<TestStore> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-test-'));
  const dbPath = testConfig(dir, options.env).dbPath;
  const demoAccountId = options.creators
    ? await copySeededStore({ creators: options.creators, seed: options.seed ?? 42, asOf: TEST_AS_OF }, dbPath)
    : null;
  if (!options.creators) await copyMigratedStore(dbPath);
  const store = await Store.open(dbPath, { threads: 2 });
  const testState = await createTestState(store);
  const { state, databaseUrl } = testState;
  const config = testConfig(dir, { ...(databaseUrl ? { CDS_DATABASE_URL: databaseUrl } : {}), ...options.env });
  // the demo account the seed's campaigns belong to, in this store's own state
  if (demoAccountId) await insertAccount(state, { account_id: demoAccountId, name: DEMO_ACCOUNT_NAME, plan: 'entry' });
  return {
    store,
    state,
    databaseUrl,
    config,
    dir,
    demoAccountId,
    relay: () => relayOutbox(store, state),
    cleanup: async () => {
      await testState.close().catch(() => undefined);
      await store.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Sets creators' content lists as a derivation stores them (data/derive/content-metrics.ts): `which` is a
 * creator id or an SQL condition over `creators` joined to its `creator_content` row; each given list is an SQL
 * expression over the same (`params` bind its `?`; a list's own name is its stored value), the others stay
 * as they are. A creator whose lists all end empty has no row.
 */
export async function setContentLists(
  store: Store,
  which: number | string,
  lists: Partial<Record<ContentList, string>>,
  params: SqlValue[] = [],
): Promise<void> {
  await store.transaction((tx) => writeContentLists(tx, which, lists, params));
}

/** `setContentLists` inside the caller's transaction. */
export async function writeContentLists(
  tx: Queryable,
  which: number | string,
  lists: Partial<Record<ContentList, string>>,
  params: SqlValue[] = [],
): Promise<void> {
  const where = typeof which === 'number' ? `creator_id = ${Math.trunc(which)}` : which;
  const value = (l: ContentList): string => `coalesce((${lists[l] ?? l})::VARCHAR[], []) AS ${l}`;
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE set_content AS SELECT creator_id, ${CONTENT_LISTS.map(value).join(', ')}
      FROM creators LEFT JOIN creator_content USING (creator_id) WHERE ${where}`,
    params,
  );
  await tx.run('DELETE FROM creator_content WHERE creator_id IN (SELECT creator_id FROM set_content)');
  await tx.run(`INSERT INTO creator_content (creator_id, ${CONTENT_LISTS.join(', ')}, fingerprint)
      SELECT *, ${contentFingerprintSql()} FROM set_content WHERE ${CONTENT_LISTS.map((l) => `len(${l}) > 0`).join(' OR ')}`);
  await tx.run('DROP TABLE set_content');
}

/**
 * The one row of a query of counts and figures, every column `K` as a number
 * (DuckDB answers a count as a bigint or a number depending on its size).
 */
export async function figuresOf<K extends string>(
  db: Pick<Queryable, 'one'>,
  sql: string,
  params: SqlValue[] = [],
): Promise<Record<K, number>> {
  const row = await db.one<Record<string, unknown>>(sql, params);
  if (!row) throw new Error(`no row from: ${sql}`);
  return Object.fromEntries(Object.entries(row).map(([name, value]) => [name, Number(value)])) as Record<K, number>;
}
