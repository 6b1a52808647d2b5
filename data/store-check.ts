import { existsSync, statSync } from 'node:fs';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { MIGRATIONS } from './migrations/index.js';
import { isWalReplayFailure } from './store-recovery.js';
import { quoteIdent, sqlString } from './sql.js';
import { timestampText } from './timestamps.js';

/** How the store at a path would open now. */
export type StoreOpenState = 'missing' | 'ok' | 'wal_recovery_needed' | 'in_use' | 'unreadable';

/** What `cds store check` reports. */
export interface StoreCheck {
  path: string;
  state: StoreOpenState;
  /** What the state means and what to do, in a sentence. */
  detail: string;
  size_bytes: number;
  wal_bytes: number;
  /** When the store file was last written; DuckDB writes it only at a checkpoint, so this is the last checkpoint. */
  last_checkpoint_at: string | null;
  migrations_applied: Array<{ version: number; name: string; applied_at: string }>;
  /** Versions this release has that the store has not applied yet (the next start applies them). */
  migrations_pending: number[];
}

const DETAIL: Record<StoreOpenState, string> = {
  missing: 'no store at this path yet; `cds start` creates it',
  ok: 'opens directly; any transactions in the WAL replay on open',
  wal_recovery_needed:
    'DuckDB cannot replay the WAL on a plain open (ALTER TABLE in the log); `cds start` replays it by attaching ' +
    'the file instead and keeps every committed transaction',
  in_use: 'another process has the store open (the running service); stop it to read the migrations, or ask it',
  unreadable: 'not a readable DuckDB database',
};

/**
 * Reports the store's state without changing it: both files are only read
 * (a read-only open, or a read-only attach when the WAL does not replay directly).
 */
export async function checkStore(path: string): Promise<StoreCheck> {
  const wal = `${path}.wal`;
  const base = {
    path,
    size_bytes: existsSync(path) ? statSync(path).size : 0,
    wal_bytes: existsSync(wal) ? statSync(wal).size : 0,
    last_checkpoint_at: existsSync(path) ? timestampText(statSync(path).mtime) : null,
  };
  if (!existsSync(path))
    return {
      ...base,
      ...withState('missing'),
      migrations_applied: [],
      migrations_pending: MIGRATIONS.map((m) => m.version),
    };
  const read = await readMigrations(path);
  const applied = read.applied ?? [];
  const done = new Set(applied.map((m) => m.version));
  return {
    ...base,
    ...withState(read.state, read.error),
    migrations_applied: applied,
    migrations_pending: read.applied ? MIGRATIONS.filter((m) => !done.has(m.version)).map((m) => m.version) : [],
  };
}

function withState(state: StoreOpenState, error?: string): { state: StoreOpenState; detail: string } {
  return { state, detail: error ? `${DETAIL[state]} (${error})` : DETAIL[state] };
}

type Applied = StoreCheck['migrations_applied'];

async function readMigrations(
  path: string,
): Promise<{ state: StoreOpenState; applied: Applied | null; error?: string }> {
  try {
    const applied = await withReadOnly(path, false, async (c) => appliedMigrations(c, await currentDatabase(c)));
    return { state: 'ok', applied };
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]?.slice(0, 200) ?? '';
    if (/lock/i.test(message)) return { state: 'in_use', applied: null, error: message };
    if (!isWalReplayFailure(error)) return { state: 'unreadable', applied: null, error: message };
  }
  const applied = await withReadOnly(path, true, (c) => appliedMigrations(c, 'checked')).catch(() => null);
  return { state: applied ? 'wal_recovery_needed' : 'unreadable', applied };
}

/** A read-only connection to the store: opened directly, or attached (read-only) to an in-memory database as `checked`. */
async function withReadOnly<T>(path: string, attach: boolean, fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
  const instance = await DuckDBInstance.create(attach ? ':memory:' : path, attach ? {} : { access_mode: 'READ_ONLY' });
  const connection = await instance.connect();
  try {
    if (attach) await connection.run(`ATTACH ${sqlString(path)} AS checked (READ_ONLY)`);
    return await fn(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** A file opened directly is a database named after the file. */
async function currentDatabase(c: DuckDBConnection): Promise<string> {
  return String((await c.runAndReadAll('SELECT current_database() AS d')).getRowObjectsJS()[0]?.['d']);
}

async function appliedMigrations(c: DuckDBConnection, database: string): Promise<Applied> {
  const tables = await c.runAndReadAll(
    `SELECT 1 FROM duckdb_tables() WHERE database_name = ${sqlString(database)} AND table_name = 'schema_migrations'`,
  );
  if (tables.currentRowCount === 0) return [];
  const reader = await c.runAndReadAll(
    `SELECT version, name, applied_at FROM ${quoteIdent(database)}.schema_migrations ORDER BY version`,
  );
  return reader.getRowObjectsJS().map((r) => ({
    version: Number(r['version']),
    name: String(r['name']),
    applied_at: timestampText(r['applied_at'] as Date),
  }));
}
