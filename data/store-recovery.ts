import { existsSync, statSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';
import { quoteIdent, sqlString } from './sql.js';

/**
 * The store's write-ahead log could not be replayed, neither on open nor through
 * the recovery below. Nothing was changed: the store file and its WAL are as the
 * crash left them.
 */
export class StoreWalReplayError extends Error {
  override name = 'StoreWalReplayError';
}

/**
 * DuckDB (1.5) fails to replay an `ALTER TABLE … ADD COLUMN` from the WAL when the
 * table has a function default (`current_timestamp`, `nextval`): it re-binds the
 * defaults while no default database is set. The same WAL replays when the file is
 * attached to another database, because that one is then the default.
 */
export function isWalReplayFailure(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /Failure while replaying WAL/i.test(message);
}

/**
 * Replays the WAL of the store at `path` by attaching it to an in-memory database,
 * then checkpoints it into the file (so a plain open needs no replay) and detaches.
 * Every committed transaction in the WAL is kept; the WAL is never deleted unread.
 * Throws StoreWalReplayError, leaving both files untouched, when the replay fails there too.
 */
export async function replayWalByAttaching(path: string): Promise<void> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(`ATTACH ${sqlString(path)} AS ${quoteIdent('recovered')}`);
    await connection.run(`CHECKPOINT ${quoteIdent('recovered')}`);
    await connection.run(`DETACH ${quoteIdent('recovered')}`);
  } catch (error) {
    throw walReplayError(path, error);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** What an operator reads when the WAL cannot be replayed at all: what happened, and what to do. */
export function walReplayError(path: string, cause: unknown): StoreWalReplayError {
  const detail = (cause instanceof Error ? cause.message : String(cause)).split('\n')[0]?.slice(0, 300) ?? '';
  const wal = `${path}.wal`;
  const walBytes = existsSync(wal) ? statSync(wal).size : 0;
  return new StoreWalReplayError(
    `the store ${path} cannot be opened: its write-ahead log ${wal} (${walBytes} bytes, the transactions ` +
      `committed since the last checkpoint) could not be replayed (${detail}). Nothing was changed. Copy both files somewhere safe ` +
      `first; \`cds store check\` reports their state. Then restore the store from a backup or snapshot, or, to keep the data up to ` +
      `the last checkpoint only, move ${wal} aside and start again (the transactions in it are lost).`,
  );
}
