import { DUCKDB_SQL } from './state/state-sql.js';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  type DuckDBConnection,
  DuckDBInstance,
  LIST,
  VARCHAR,
  listValue,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { runMigrations } from './migrations/index.js';
import { privateFile } from './private-files.js';
import { isWalReplayFailure, replayWalByAttaching, walReplayError } from './store-recovery.js';
import { discardInterruptedSeed } from './seed/seed-state.js';
import { serialisedOn } from '../core/keyed-queue.js';
import { inTransaction, type Queryable } from './queryable.js';
import type { Row, SqlParams, SqlValue, StateDb, TransactionOptions } from './state/state-db.js';

// Defined below the store (migrations and the seed state use them without importing the store); re-exported for its users.
export { inTransaction, type Queryable } from './queryable.js';
export type { Row, SqlParams, SqlValue } from './state/state-db.js';

/** The store file is held by another process (DuckDB allows one writer process). */
export class StoreLockedError extends Error {
  override name = 'StoreLockedError';
}

/** The store file exists but is not a readable DuckDB database. */
export class StoreCorruptError extends Error {
  override name = 'StoreCorruptError';
}

export interface StoreOptions {
  memoryLimit?: string | null;
  threads?: number | null;
  /**
   * false lets DuckDB write query results out of order where no ORDER BY asks for one, which bounds
   * the memory a big COPY holds (an exports-only process; every export query orders its rows).
   */
  preserveInsertionOrder?: boolean;
  /** Connections kept for concurrent reads; a transaction takes one for its duration. */
  poolSize?: number;
  readOnly?: boolean;
  /** Told when opening had to recover the store (its WAL replayed by attaching it; nothing lost), for the log. */
  onRecovered?: (message: string) => void;
}

/**
 * The embedded store: one DuckDB file, opened once per process, with a small
 * connection pool. BIGINTs come back as JS numbers (every count we keep fits).
 */
/** One opened DuckDB file and its connections; a read-only store moves to a new one on `switchTo`. */
interface Generation {
  instance: DuckDBInstance;
  connections: DuckDBConnection[];
  idle: DuckDBConnection[];
  path: string;
  /** Connections lent out and not yet back. */
  lent: number;
  /** Replaced by a newer file, or the store closed: closed once its last lent connection comes back. */
  retired: boolean;
  /** Told when a retired generation is closed (the store's `close` waits for it). */
  onClosed?: () => void;
  closed?: boolean;
}

/** How long `close` waits for the queries in flight before it closes their connections under them. */
const CLOSE_WAIT_MS = 30_000;

/**
 * The embedded store: one DuckDB file, opened once per process, with a small
 * connection pool. BIGINTs come back as JS numbers (every count we keep fits).
 * A read-only store (an API replica's snapshot) can switch to a newer file with
 * no failed or paused request: queries in flight finish on the old file, new
 * ones start on the new one, and the old file is closed when the last is done.
 */
export class Store implements StateDb {
  readonly dialect = 'duckdb' as const;
  readonly sql = DUCKDB_SQL;
  private current: Generation;
  private readonly lentFrom = new Map<DuckDBConnection, Generation>();
  private readonly waiting: Array<(c: DuckDBConnection) => void> = [];
  private closed = false;

  private constructor(
    first: Generation,
    private readonly options: StoreOptions,
  ) {
    this.current = first;
  }

  /** The DuckDB memory limit the store was opened with (CDS_DUCKDB_MEMORY_LIMIT); null for DuckDB's default. */
  get memoryLimit(): string | null {
    return this.options.memoryLimit ?? null;
  }

  /** Opens (creating if needed) the store file and brings its schema up to date. */
  static async open(path: string, options: StoreOptions = {}): Promise<Store> {
    if (path !== ':memory:' && !options.readOnly) mkdirSync(dirname(path), { recursive: true });
    const store = new Store(await openGeneration(path, options), options);
    if (path !== ':memory:' && !options.readOnly) {
      // DuckDB makes its files with the process umask; the data is the service account's alone
      privateFile(path);
      privateFile(`${path}.wal`);
    }
    if (!options.readOnly) {
      await store.withConnection((c) => runMigrations(wrap(c)));
      // a demo seed that never finished is never served: it goes before anything else reads the store
      await discardInterruptedSeed(store);
    }
    return store;
  }

  /** Opened read-only (an API replica's snapshot): no writes, no rebuilds. */
  get readOnly(): boolean {
    return this.options.readOnly === true;
  }

  /** The file this store reads now. */
  get path(): string {
    return this.current.path;
  }

  /**
   * Moves a read-only store to another file (a newer snapshot). Opening happens
   * first; a file that cannot be opened throws and leaves the store as it was.
   */
  async switchTo(path: string): Promise<void> {
    if (!this.options.readOnly) throw new Error('only a read-only store can switch files');
    if (this.closed) throw new Error('store is closed');
    const next = await openGeneration(path, this.options);
    const previous = this.current;
    this.current = next;
    previous.retired = true;
    while (this.waiting.length > 0 && next.idle.length > 0) this.lend(next, next.idle.pop()!, this.waiting.shift()!);
    if (previous.lent === 0) closeGeneration(previous);
  }

  async all<T extends Row = Row>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.withConnection((c) => wrap(c).all<T>(sql, params));
  }

  async one<T extends Row = Row>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return this.withConnection((c) => wrap(c).one<T>(sql, params));
  }

  /** Runs a statement; answers the number of rows it changed where DuckDB reports one. */
  async run(sql: string, params?: SqlParams): Promise<number> {
    return this.withConnection((c) => wrap(c).run(sql, params));
  }

  /**
   * Runs `fn` inside BEGIN … COMMIT on one connection; any throw rolls the whole
   * thing back. `serialiseOn` queues transactions naming the same key (this
   * process owns the file, so an in-process queue covers every writer).
   */
  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const work = (): Promise<T> => this.withConnection((c) => inTransaction(wrap(c), fn));
    return options.serialiseOn ? serialisedOn(options.serialiseOn, work) : work();
  }

  /** Lends a pooled connection to `fn` and takes it back after. */
  async withConnection<T>(fn: (c: DuckDBConnection) => Promise<T>): Promise<T> {
    const connection = await this.acquire();
    try {
      return await fn(connection);
    } finally {
      this.release(connection);
    }
  }

  /** Streams a query's rows in chunks, holding one connection until the iteration ends. */
  async *stream<T extends Row = Row>(sql: string, params?: SqlParams): AsyncGenerator<T[]> {
    const connection = await this.acquire();
    try {
      const result = await connection.stream(sql, toDuckParams(params), toDuckTypes(params));
      for await (const rows of result.yieldRowObjectJs()) yield rows.map(normaliseRow) as T[];
    } finally {
      this.release(connection);
    }
  }

  /**
   * Checkpoints and closes every connection; later calls fail. Queries in flight
   * finish first (resolves once the last is back): a DuckDB connection closed
   * under a running query never answers it, and the process, waiting on it,
   * never exits (the search-scale bench sat idle after its last figures so).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    if (!this.options.readOnly) await this.run('CHECKPOINT').catch(() => undefined);
    this.closed = true;
    const gen = this.current;
    gen.retired = true;
    if (gen.lent === 0) {
      closeGeneration(gen);
      return;
    }
    // a connection never given back (an abandoned stream) must not hold a shutdown forever: closed anyway after a while
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      gen.onClosed = resolve;
      timer = setTimeout(() => closeGeneration(gen), CLOSE_WAIT_MS);
    });
    clearTimeout(timer);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  private acquire(): Promise<DuckDBConnection> {
    if (this.closed) return Promise.reject(new Error('store is closed'));
    const gen = this.current;
    const c = gen.idle.pop();
    if (c) return Promise.resolve(this.lend(gen, c));
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private lend(gen: Generation, c: DuckDBConnection, to?: (c: DuckDBConnection) => void): DuckDBConnection {
    gen.lent += 1;
    this.lentFrom.set(c, gen);
    to?.(c);
    return c;
  }

  private release(c: DuckDBConnection): void {
    const gen = this.lentFrom.get(c);
    this.lentFrom.delete(c);
    if (!gen) return;
    gen.lent -= 1;
    if (gen !== this.current || gen.retired) {
      if (gen.retired && gen.lent === 0) closeGeneration(gen);
      return;
    }
    const next = this.waiting.shift();
    if (next) this.lend(gen, c, next);
    else gen.idle.push(c);
  }
}

async function openGeneration(path: string, options: StoreOptions): Promise<Generation> {
  const instance = await createInstance(path, options);
  const size = options.poolSize ?? 4;
  const connections: DuckDBConnection[] = [];
  try {
    for (let i = 0; i < size; i++) connections.push(await instance.connect());
    // TIMESTAMP columns hold UTC: `current_timestamp` defaults must not follow the machine's zone.
    await connections[0]!.run("SET GLOBAL TimeZone = 'UTC'");
  } catch (error) {
    for (const c of connections) c.closeSync();
    instance.closeSync();
    throw error;
  }
  return { instance, connections, idle: [...connections], path, lent: 0, retired: false };
}

function closeGeneration(gen: Generation): void {
  if (gen.closed) return;
  gen.closed = true;
  for (const c of gen.connections) c.closeSync();
  gen.instance.closeSync();
  gen.onClosed?.();
}

async function createInstance(path: string, options: StoreOptions): Promise<DuckDBInstance> {
  const settings: Record<string, string> = {};
  if (options.memoryLimit) settings['memory_limit'] = options.memoryLimit;
  if (options.threads) settings['threads'] = String(options.threads);
  if (options.preserveInsertionOrder === false) settings['preserve_insertion_order'] = 'false';
  if (options.readOnly) settings['access_mode'] = 'READ_ONLY';
  try {
    return await DuckDBInstance.create(path, settings);
  } catch (error) {
    if (!isWalReplayFailure(error)) throw classifyOpenError(path, error);
    if (options.readOnly) throw walReplayError(path, error);
    await replayWalByAttaching(path);
    options.onRecovered?.(
      `the store ${path} did not open directly: DuckDB could not replay its write-ahead log (a known DuckDB fault with ` +
        'ALTER TABLE in the log); the log was replayed by attaching the file instead and checkpointed, keeping every committed transaction',
    );
  }
  try {
    return await DuckDBInstance.create(path, settings);
  } catch (error) {
    throw classifyOpenError(path, error);
  }
}

function classifyOpenError(path: string, error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  if (/lock/i.test(message)) {
    return new StoreLockedError(`the store ${path} is in use by another process (${firstLine(message)})`);
  }
  if (/not a valid DuckDB database|invalid|corrupt|checksum|Serialization/i.test(message)) {
    return new StoreCorruptError(`the store ${path} is not a readable DuckDB database (${firstLine(message)})`);
  }
  return error instanceof Error ? error : new Error(message);
}

function firstLine(s: string): string {
  return s.split('\n')[0]?.slice(0, 200) ?? s;
}

/** Wraps a raw connection in the `Queryable` helpers (for code handed a connection). */
export function wrap(connection: DuckDBConnection): Queryable {
  return {
    dialect: 'duckdb',
    sql: DUCKDB_SQL,
    connection,
    async all<T extends Row>(sql: string, params?: SqlParams): Promise<T[]> {
      const reader = await connection.runAndReadAll(sql, toDuckParams(params), toDuckTypes(params));
      return reader.getRowObjectsJS().map(normaliseRow) as T[];
    },
    async one<T extends Row>(sql: string, params?: SqlParams): Promise<T | undefined> {
      const reader = await connection.runAndReadUntil(sql, 1, toDuckParams(params), toDuckTypes(params));
      const row = reader.getRowObjectsJS()[0];
      return row ? (normaliseRow(row) as T) : undefined;
    },
    async run(sql: string, params?: SqlParams): Promise<number> {
      const result = await connection.run(sql, toDuckParams(params), toDuckTypes(params));
      return Number(result.rowsChanged);
    },
  };
}

function toDuckParams(params: SqlParams | undefined): DuckDBValue[] | Record<string, DuckDBValue> | undefined {
  if (params === undefined) return undefined;
  if (Array.isArray(params)) return (params as readonly SqlValue[]).map(toDuckValue);
  const out: Record<string, DuckDBValue> = {};
  for (const [k, v] of Object.entries(params as Record<string, SqlValue>)) out[k] = toDuckValue(v);
  return out;
}

/** Explicit parameter types, so placeholders work where DuckDB cannot infer one (CREATE TABLE AS, SET). */
function toDuckTypes(params: SqlParams | undefined): DuckDBType[] | Record<string, DuckDBType | undefined> | undefined {
  if (params === undefined) return undefined;
  if (Array.isArray(params)) return (params as readonly SqlValue[]).map((v) => typeOf(v) as DuckDBType);
  const out: Record<string, DuckDBType | undefined> = {};
  for (const [k, v] of Object.entries(params as Record<string, SqlValue>)) out[k] = typeOf(v);
  return out;
}

function typeOf(v: SqlValue): DuckDBType | undefined {
  if (typeof v === 'string') return VARCHAR;
  if (typeof v === 'boolean') return BOOLEAN;
  if (typeof v === 'bigint') return BIGINT;
  // Only safe integers go as BIGINT: 1e20 is an integer to JS but past int64, and
  // 2^53+1 is not the number the caller wrote; DOUBLE binds both without an error.
  if (typeof v === 'number') return Number.isSafeInteger(v) ? BIGINT : DOUBLE;
  if (Array.isArray(v)) return LIST(v.length > 0 && typeof v[0] === 'number' ? DOUBLE : VARCHAR);
  return undefined;
}

function toDuckValue(v: SqlValue): DuckDBValue {
  if (Array.isArray(v)) return listValue([...(v as ReadonlyArray<string | number>)]);
  return v as DuckDBValue;
}

/** BIGINT → number, nested lists and structs too; everything we count fits in 2^53. */
export function normaliseRow(row: Record<string, unknown>): Row {
  const out: Row = {};
  for (const [k, v] of Object.entries(row)) out[k] = normaliseValue(v);
  return out;
}

function normaliseValue(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(normaliseValue);
  if (v !== null && typeof v === 'object' && !(v instanceof Date) && !(v instanceof Uint8Array)) {
    return normaliseRow(v as Record<string, unknown>);
  }
  return v;
}
