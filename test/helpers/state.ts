import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject, it } from 'vitest';
import { PgState } from '../../data/state/pg-state.js';
import type { StateDb } from '../../data/state/state-db.js';
import { Store } from '../../data/store.js';

/** Which state backend this test project runs on: the embedded store, or PostgreSQL (cluster mode). */
export const STATE_BACKEND: 'embedded' | 'postgres' =
  process.env['CDS_TEST_STATE'] === 'postgres' ? 'postgres' : 'embedded';

/**
 * The service state for a test store: the store itself in the embedded project,
 * a fresh PostgreSQL database of the file's own (migrated) in the cluster project.
 */
export async function createTestState(
  store: Store,
): Promise<{ state: StateDb; databaseUrl: string | null; close(): Promise<void> }> {
  if (STATE_BACKEND === 'embedded') return { state: store, databaseUrl: null, close: async () => undefined };
  const serverUrl = inject('stateDatabaseUrl');
  const name = `cds_t_${randomBytes(6).toString('hex')}`;
  await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
  const databaseUrl = serverUrl.replace(/\/[^/]*$/, `/${name}`);
  const state = await PgState.open(databaseUrl, { applicationName: 'cds test', max: 8 });
  return {
    state,
    databaseUrl,
    close: async () => {
      await state.close();
      await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
    },
  };
}

/**
 * A migrated PostgreSQL database of the caller's own on the suite's server, for
 * tests that start services on it by URL (cluster-mode processes, an election).
 * Only the postgres project has that server.
 */
export async function createTestDatabase(): Promise<{ databaseUrl: string; close(): Promise<void> }> {
  // createTestState wants a store beside the state; these tests use none, so an empty in-memory one stands in
  const scratch = await Store.open(':memory:');
  const made = await createTestState(scratch);
  if (!made.databaseUrl)
    throw new Error('createTestDatabase runs only in the postgres project (CDS_TEST_STATE=postgres)');
  return {
    databaseUrl: made.databaseUrl,
    close: async () => {
      await made.close();
      await scratch.close();
    },
  };
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A test of PostgreSQL-only machinery (row locks across connections, leases
 * between processes), registered only in the cluster-mode project: the embedded
 * store has one process and no such locks, so there it is not a test at all
 * rather than a skipped one.
 */
export function itInClusterMode(name: string, fn: () => Promise<void>, timeoutMs?: number): void {
  if (STATE_BACKEND === 'postgres') it(name, fn, timeoutMs);
}
