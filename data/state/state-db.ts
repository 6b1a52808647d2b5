import type { StateSql } from './state-sql.js';

/** A value that can be bound to a `?` / `$n` placeholder. Arrays become DuckDB lists (PostgreSQL arrays). */
export type SqlValue = string | number | boolean | null | bigint | readonly string[] | readonly number[];
export type SqlParams = readonly SqlValue[] | Readonly<Record<string, SqlValue>>;
export type Row = Record<string, unknown>;

/** Which engine holds the service state: the embedded DuckDB file, or PostgreSQL (cluster mode). */
export type Dialect = 'duckdb' | 'postgres';

/**
 * Queries against the service state (accounts, keys, lists, webhooks, outbox,
 * exports, runs…). One SQL text serves both engines: where they differ, the
 * text takes its fragment from `sql` (state-sql.ts). `dialect` is for
 * data/state/ itself and tests; repository code asks `sql`.
 * Placeholders are `?` (positional) or `$name` (named) on both.
 */
export interface StateQueryable {
  readonly dialect: Dialect;
  /** The engine's capabilities and SQL fragments. */
  readonly sql: StateSql;
  all<T extends Row = Row>(sql: string, params?: SqlParams): Promise<T[]>;
  one<T extends Row = Row>(sql: string, params?: SqlParams): Promise<T | undefined>;
  /** Runs a statement; answers the number of rows it changed. */
  run(sql: string, params?: SqlParams): Promise<number>;
}

/** Anything that runs statements: a store, a transaction's connection, the PostgreSQL state. */
export type SqlRunner = Pick<StateQueryable, 'all' | 'one' | 'run'>;

export interface TransactionOptions {
  /**
   * Transactions naming the same key run one at a time, across every process
   * that shares the state: a keyed in-process queue on DuckDB (one writer
   * process), a transaction-scoped advisory lock on PostgreSQL.
   */
  serialiseOn?: string;
}

/** Whether the state answered a probe, and why not. */
export type PingResult = { ok: true } | { ok: false; reason: string };

/** The service state: the embedded `Store` or a `PgState` (chosen in `openState`). */
export interface StateDb extends StateQueryable {
  /** Runs `fn` inside BEGIN … COMMIT; any throw rolls the whole thing back. */
  transaction<T>(fn: (tx: StateQueryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * A state on another server (PostgreSQL) can be probed, answering within `timeoutMs`
   * whatever the server does; the embedded store, in the process itself, has no such probe.
   */
  ping?(timeoutMs: number): Promise<PingResult>;
}
