import type { DuckDBConnection } from '@duckdb/node-api';
import type { StateQueryable } from './state/state-db.js';

/*
 * The store's query interface, below the store itself: migrations and the seed
 * state use it, and the store (which runs them when it opens) imports them, so
 * dependencies point one way (store → migrations → this module).
 */

/** Queries on one connection; what `Store.transaction` hands to its callback. */
export interface Queryable extends StateQueryable {
  readonly dialect: 'duckdb';
  /** The underlying connection, for streaming and appenders. */
  readonly connection: DuckDBConnection;
}

/**
 * Runs `fn` inside BEGIN … COMMIT on the connection `c` (one lent by
 * `Store.withConnection`); any throw rolls the whole thing back. For work that
 * prepares temp tables on the connection first: DuckDB reads rows written
 * inside the open transaction at about half the speed of committed ones, so
 * what the transaction only reads is better built before it begins.
 */
export async function inTransaction<T>(c: Queryable, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  await c.run('BEGIN TRANSACTION');
  try {
    const result = await fn(c);
    await c.run('COMMIT');
    return result;
  } catch (error) {
    await c.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
