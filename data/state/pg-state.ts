import { POSTGRES_SQL } from './state-sql.js';
import pg from 'pg';
import { UnavailableError } from '../errors.js';
import type { Row, SqlParams } from '../store.js';
import { toPgQuery } from './pg-params.js';
import { runPgMigrations } from './pg-migrations.js';
import type { PingResult, StateDb, StateQueryable, TransactionOptions } from './state-db.js';

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
      case 20:
      case 1700:
        return (v: string) => Number(v);
      case 1016:
      case 1231:
        return (v: string) => (builtinParser(1016)(v) as unknown[]).map(Number);
      case TIMESTAMP_OID:
        return (v: string) => new Date(`${v.replace(' ', 'T')}Z`);
      case 114:
      case 3802:
        return (v: string) => v;
      default:
        return builtinParser(oid, format);
    }
  },
};

/** A pooled client or the pool itself: both answer `query`. */
type PgRunner = Pick<pg.PoolClient, 'query'>;

function queryable(runner: PgRunner, gate: OutageGate): StateQueryable {
  const query = async (sql: string, params?: SqlParams): Promise<pg.QueryResult> => {
    gate.check();
    const q = toPgQuery(sql, params);
    try {
      return await runner.query(q.text, q.values);
    } catch (error) {
      throw gate.saw(classify(error));
    }
  };
  return {
    dialect: 'postgres',
    sql: POSTGRES_SQL,
    all: async <T extends Row>(sql: string, params?: SqlParams) => (await query(sql, params)).rows as T[],
    one: async <T extends Row>(sql: string, params?: SqlParams) => (await query(sql, params)).rows[0] as T | undefined,
    run: async (sql: string, params?: SqlParams) => (await query(sql, params)).rowCount ?? 0,
  };
}

/** SQLSTATEs of a server that is down, restarting or full: the request may succeed when retried. */
const UNAVAILABLE_STATES = /^(08|57P0[1-3]|53300)/;

/** One line on why the server did not answer, naming no host or port (logs, readiness). */
export function describeFailure(error: unknown): string {
  const e = error as { code?: string; message?: string };
  if (typeof e.code === 'string' && /^E[A-Z]+$/.test(e.code)) return `cannot connect (${e.code})`;
  if (typeof e.code === 'string' && UNAVAILABLE_STATES.test(e.code))
    return `the server is shutting down or starting (SQLSTATE ${e.code})`;
  const message = (e.message ?? String(error)).replace(/\d{1,3}(\.\d{1,3}){3}(:\d+)?/g, '<host>');
  return message.length > 160 ? `${message.slice(0, 157)}...` : message;
}

/**
 * A PostgreSQL that cannot be reached (refused, reset, restarting, out of
 * connections) is a 503 `unavailable` to API callers, not a 500; the message
 * names no host or port.
 */
function classify(error: unknown): unknown {
  const e = error as { code?: string; message?: string };
  const network =
    typeof e.code === 'string' && /^E(CONNREFUSED|CONNRESET|PIPE|TIMEDOUT|HOSTUNREACH|AI_AGAIN)$/.test(e.code);
  const state = typeof e.code === 'string' && UNAVAILABLE_STATES.test(e.code);
  const ended =
    /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect|Query read timeout/i.test(
      e.message ?? '',
    );
  if (network || state || ended)
    return new UnavailableError('the shared state is not reachable right now; retry shortly', { cause: error });
  return error;
}

/**
 * Whether an unavailable error proves the server unreachable, rather than this process's pool being
 * busy (every connection in use past the connect timeout: a burst, not an outage).
 */
function provesOutage(error: unknown): boolean {
  return (
    error instanceof UnavailableError &&
    !/timeout exceeded when trying to connect/.test(String((error.cause as Error | undefined)?.message))
  );
}

/** Whether an error means the server could not be reached (down, restarting, paused), not a fault in the query. */
export function isUnreachable(error: unknown): boolean {
  return classify(error) instanceof UnavailableError;
}

export interface PgStateOptions {
  /** Shown in `pg_stat_activity` (the process's roles). */
  applicationName?: string;
  /** Connections in the pool. */
  max?: number;
  /** How long a new connection (or a wait for a free one) may take before the query fails `unavailable` (default 5 s). */
  connectTimeoutMs?: number;
  /**
   * How long a query on an open connection may go unanswered before it fails `unavailable` and its
   * connection is dropped (default 15 s): a paused or partitioned server answers nothing, and
   * without a bound the query would wait for the TCP keep-alive, minutes later.
   */
  queryTimeoutMs?: number;
  /** After an unreachable server, queries fail at once for this long instead of each waiting its timeout (default 1 s). */
  failFastMs?: number;
}

/** What cluster processes use: see docs/scaling.md (*When PostgreSQL goes away*). */
export const PG_TIMEOUTS = Object.freeze({ connectMs: 5_000, queryMs: 15_000, apiQueryMs: 5_000, failFastMs: 1_000 });

/** Probes that must fail in a row before queries fail at once until one succeeds (one slow probe on a busy machine is no outage). */
const PROBES_TO_HOLD = 2;

/**
 * Fails queries at once while the server is known unreachable, so that requests
 * during an outage answer 503 without each waiting for its own connect timeout:
 * for a short window after a query found it unreachable, and from the second
 * failed probe in a row (`ping`, the process's state watch) until a probe succeeds.
 */
class OutageGate {
  private until = 0;
  private failedProbes = 0;

  constructor(private readonly windowMs: number) {}

  check(): void {
    if (this.failedProbes >= PROBES_TO_HOLD || Date.now() < this.until) {
      throw new UnavailableError('the shared state is not reachable right now; retry shortly');
    }
  }

  saw(error: unknown): unknown {
    if (provesOutage(error)) this.until = Date.now() + this.windowMs;
    return error;
  }

  probed(ok: boolean): void {
    this.failedProbes = ok ? 0 : this.failedProbes + 1;
    if (ok) this.until = 0;
  }
}

/** The service state on PostgreSQL (cluster mode): a pool, migrated on open. */
export class PgState implements StateDb {
  readonly dialect = 'postgres' as const;
  readonly sql = POSTGRES_SQL;
  private readonly q: StateQueryable;
  private closed = false;

  private constructor(
    readonly pool: pg.Pool,
    readonly url: string,
    private readonly gate: OutageGate,
  ) {
    this.q = queryable(pool, gate);
  }

  /** Connects and brings the schema up to date (under an advisory lock, so many processes may start at once). */
  static async open(url: string, options: PgStateOptions = {}): Promise<PgState> {
    const pool = new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      types,
      connectionTimeoutMillis: options.connectTimeoutMs ?? PG_TIMEOUTS.connectMs,
      query_timeout: options.queryTimeoutMs ?? PG_TIMEOUTS.queryMs,
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
    return new PgState(pool, url, new OutageGate(options.failFastMs ?? PG_TIMEOUTS.failFastMs));
  }

  /**
   * Whether the server answers a trivial query within `timeoutMs`; never takes longer,
   * whatever the server does (readiness, the outage watch). Resolves to the reason when it does not.
   */
  async ping(timeoutMs: number): Promise<PingResult> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<string>((r) => {
      timer = setTimeout(() => r(`no answer within ${timeoutMs} ms`), timeoutMs);
    });
    const answered = this.pool.query('SELECT 1').then(
      () => null,
      (error: unknown) => describeFailure(error),
    );
    try {
      const reason = await Promise.race([answered, late]);
      this.gate.probed(reason === null);
      return reason === null ? { ok: true } : { ok: false, reason };
    } finally {
      clearTimeout(timer);
    }
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
    this.gate.check();
    const client = await this.pool.connect().catch((error: unknown) => {
      throw this.gate.saw(classify(error));
    });
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      if (options.serialiseOn)
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [options.serialiseOn]);
      const result = await fn(queryable(client, this.gate));
      await client.query('COMMIT');
      return result;
    } catch (error) {
      const classified = this.gate.saw(classify(error));
      // a connection that timed out or broke may still have a query running: it goes, it is not reused
      if (provesOutage(classified)) broken = classified as Error;
      else await client.query('ROLLBACK').catch(() => undefined);
      throw classified;
    } finally {
      client.release(broken);
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
