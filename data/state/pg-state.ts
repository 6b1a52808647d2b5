import pg from 'pg';
import { UnavailableError } from '../errors.js';
import type { Row, SqlParams } from '../store.js';
import { toPgQuery } from './pg-params.js';
import { runPgMigrations } from './pg-migrations.js';
import type { StateDb, StateQueryable, TransactionOptions } from './state-db.js';

const TIMESTAMP_OID = 1114;
const builtinParser = pg.types.getTypeParser as (oid: number, format?: 'text' | 'binary') => (value: string) => unknown;

/**
 * Row values as the embedded store answers them, so the mappers above see the
 * same shapes on both engines: 64-bit integers and numerics as numbers, naive
 * TIMESTAMPs as UTC Dates (node-pg would read them in the machine's zone), JSON
 * as its text (DuckDB hands JSON back unparsed).
 */
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    switch (oid) {
      case 20: case 1700: return (v: string) => Number(v);
      case 1016: case 1231: return (v: string) => (builtinParser(1016)(v) as unknown[]).map(Number);
      case TIMESTAMP_OID: return (v: string) => new Date(`${v.replace(' ', 'T')}Z`);
      case 114: case 3802: return (v: string) => v;
      default: return builtinParser(oid, format);
    }
  },
};

/** A pooled client or the pool itself: both answer `query`. */
type PgRunner = Pick<pg.PoolClient, 'query'>;

function queryable(runner: PgRunner): StateQueryable {
  const query = async (sql: string, params?: SqlParams): Promise<pg.QueryResult> => {
    const q = toPgQuery(sql, params);
    try {
      return await runner.query(q.text, q.values);
    } catch (error) {
      throw classify(error);
    }
  };
  return {
    dialect: 'postgres',
    all: async <T extends Row>(sql: string, params?: SqlParams) => (await query(sql, params)).rows as T[],
    one: async <T extends Row>(sql: string, params?: SqlParams) => (await query(sql, params)).rows[0] as T | undefined,
    run: async (sql: string, params?: SqlParams) => (await query(sql, params)).rowCount ?? 0,
  };
}

/** SQLSTATEs of a server that is down, restarting or full: the request may succeed when retried. */
const UNAVAILABLE_STATES = /^(08|57P0[1-3]|53300)/;

/**
 * A PostgreSQL that cannot be reached (refused, reset, restarting, out of
 * connections) is a 503 `unavailable` to API callers, not a 500; the message
 * names no host or port.
 */
function classify(error: unknown): unknown {
  const e = error as { code?: string; message?: string };
  const network = typeof e.code === 'string' && /^E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|AI_AGAIN)$/.test(e.code);
  const state = typeof e.code === 'string' && UNAVAILABLE_STATES.test(e.code);
  const ended = /Connection terminated|connection timeout|Client has encountered a connection error/i.test(e.message ?? '');
  if (network || state || ended) return new UnavailableError('the shared state is not reachable right now; retry shortly', { cause: error });
  return error;
}

export interface PgStateOptions {
  /** Shown in `pg_stat_activity` (the process's roles). */
  applicationName?: string;
  /** Connections in the pool. */
  max?: number;
}

/** The service state on PostgreSQL (cluster mode): a pool, migrated on open. */
export class PgState implements StateDb {
  readonly dialect = 'postgres' as const;
  private readonly q: StateQueryable;
  private closed = false;

  private constructor(readonly pool: pg.Pool, readonly url: string) {
    this.q = queryable(pool);
  }

  /** Connects and brings the schema up to date (under an advisory lock, so many processes may start at once). */
  static async open(url: string, options: PgStateOptions = {}): Promise<PgState> {
    const pool = new pg.Pool({
      connectionString: url, max: options.max ?? 10, types, connectionTimeoutMillis: 5_000,
      application_name: options.applicationName ?? 'cds',
      // TIMESTAMP columns hold UTC, as in the embedded store
      options: '-c TimeZone=UTC',
    });
    // an idle client that loses its server must not crash the process; the next query reconnects
    pool.on('error', () => undefined);
    try {
      await runPgMigrations(pool);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
    return new PgState(pool, url);
  }

  all<T extends Row = Row>(sql: string, params?: SqlParams): Promise<T[]> {
    return this.q.all<T>(sql, params);
  }

  one<T extends Row = Row>(sql: string, params?: SqlParams): Promise<T | undefined> {
    return this.q.one<T>(sql, params);
  }

  run(sql: string, params?: SqlParams): Promise<number> {
    return this.q.run(sql, params);
  }

  async transaction<T>(fn: (tx: StateQueryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    const client = await this.pool.connect().catch((error: unknown) => { throw classify(error); });
    try {
      await client.query('BEGIN');
      if (options.serialiseOn) await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [options.serialiseOn]);
      const result = await fn(queryable(client));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw classify(error);
    } finally {
      client.release();
    }
  }

  get isClosed(): boolean {
    return this.closed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
