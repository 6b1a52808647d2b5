// Shared pieces of the reliability drills (tools/drill-load.ts, tools/drill-faults.ts):
// the service as a separate process on loopback, the CLI, a webhook receiver,
// PASS/FAIL bookkeeping. Everything binds 127.0.0.1 and is bounded in time.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, type WriteStream } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CDS = join(ROOT, 'bin', 'cds.mjs');

/** A free loopback port (bound and released; fine for a drill, never for a test). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** Starts `server` on a free loopback port; `close` drops kept-alive connections first, so it returns at once. */
export async function listenOnLoopback(server: Server): Promise<{ origin: string; close(): Promise<void> }> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** `node bin/cds.mjs start` in its own process. */
export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  env: Record<string, string>;
  /** SIGKILL: no shutdown hooks, no checkpoint. */
  kill9(): Promise<void>;
  /** SIGTERM and wait; answers the exit code. */
  stop(): Promise<number | null>;
}

/** The environment a drill's service runs with: its own data folder and port, loopback webhooks, short retries. */
export function serviceEnv(dataDir: string, port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    CDS_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    CDS_LOG_LEVEL: 'warn',
    CDS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    CDS_WEBHOOK_RETRY_SCHEDULE: '1,1,2,2,3',
    CDS_DUCKDB_THREADS: '2',
    ...extra,
  };
}

/** What a drill starts from: its checks, a fresh folder, the service's environment (data in `<dir>/data`, a free port), a webhook receiver. */
export interface DrillSetup {
  checks: Checks;
  dir: string;
  dataDir: string;
  env: Record<string, string>;
  receiver: Receiver;
}

/** Sets up drill `name` (its folder is `cds-drill-<name>-…` in the temp folder); `extraEnv` goes to `serviceEnv`. */
export async function setUpDrill(name: string, extraEnv: Record<string, string>): Promise<DrillSetup> {
  const dir = mkdtempSync(join(tmpdir(), `cds-drill-${name}-`));
  const dataDir = join(dir, 'data');
  const env = serviceEnv(dataDir, await freePort(), extraEnv);
  return { checks: new Checks(), dir, dataDir, env, receiver: await startReceiver() };
}

/** Starts the service and waits for /readyz (seeding an empty store on first start can take a while). */
export async function startServiceProcess(
  env: Record<string, string>,
  logFile: string,
  readyTimeoutMs = 180_000,
): Promise<ServiceProcess> {
  mkdirSync(resolve(logFile, '..'), { recursive: true });
  const log: WriteStream = createWriteStream(logFile, { flags: 'a' });
  const child = spawn(process.execPath, [CDS, 'start'], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${env['PORT']}`;
  const until = Date.now() + readyTimeoutMs;
  let ready = false;
  while (Date.now() < until && child.exitCode === null) {
    ready = await fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    await sleep(250);
  }
  if (!ready) {
    child.kill('SIGKILL');
    throw new Error(`service did not become ready (exit ${child.exitCode}); see ${logFile}`);
  }
  return {
    url,
    child,
    env,
    kill9: async () => {
      child.kill('SIGKILL');
      await exited;
    },
    stop: async () => {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** The parent's environment without any CDS_/PORT settings, so only the drill's own apply. */
function cleanEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith('CDS_') && k !== 'PORT' && k !== 'HOST') out[k] = v;
  return out;
}

/** Runs `cds <args>` against a data folder (through the admin channel when the service runs). */
export async function cds(
  args: string[],
  env: Record<string, string>,
  timeoutMs = 300_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [CDS, ...args], {
    cwd: ROOT,
    env: { ...cleanEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await new Promise<number | null>((r) => child.once('close', (c) => r(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** A new API key through the CLI: `{ key, account_id }`; `scopes` unset keeps the CLI's default scopes. */
export async function createKey(
  env: Record<string, string>,
  account: string,
  plan = 'enterprise',
  scopes?: readonly string[],
): Promise<{ key: string; account_id: string }> {
  const r = await cds(
    [
      'keys',
      'create',
      '--account',
      account,
      '--plan',
      plan,
      ...(scopes ? ['--scopes', scopes.join(',')] : []),
      '--json',
    ],
    env,
    60_000,
  );
  if (r.code !== 0) throw new Error(`keys create failed (${r.code}): ${r.stderr || r.stdout}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as { key: string; account_id: string };
}

/** PASS/FAIL lines, collected for docs/drills.md and the exit code. */
export class Checks {
  readonly lines: string[] = [];
  failed = 0;
  check(name: string, ok: boolean, detail = ''): boolean {
    const line = `${ok ? 'PASS' : 'FAIL'} ${name}${detail ? ` — ${detail}` : ''}`;
    if (!ok) this.failed++;
    this.lines.push(line);
    process.stdout.write(`${line}\n`);
    return ok;
  }
  info(line: string): void {
    this.lines.push(`     ${line}`);
    process.stdout.write(`     ${line}\n`);
  }
}

/** A Standard Webhooks receiver on loopback: counts deliveries by webhook-id; can answer 503 while `down`. */
export interface Receiver {
  url: string;
  /** webhook-id → times received (a retry of the same delivery has the same id). */
  byId: Map<string, number>;
  /** event types received, by webhook-id. */
  types: Map<string, string>;
  down: boolean;
  refused: number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const state: Receiver = {
    url: '',
    byId: new Map(),
    types: new Map(),
    down: false,
    refused: 0,
    close: async () => undefined,
  };
  const server: Server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (state.down) {
        state.refused++;
        res.writeHead(503, { 'retry-after': '1' }).end();
        return;
      }
      const id = String(req.headers['webhook-id'] ?? '');
      state.byId.set(id, (state.byId.get(id) ?? 0) + 1);
      try {
        state.types.set(id, String((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type?: string }).type));
      } catch {
        state.types.set(id, 'unparseable');
      }
      res.writeHead(200).end();
    });
  });
  const listening = await listenOnLoopback(server);
  state.url = `${listening.origin}/hook`;
  state.close = listening.close;
  return state;
}

/** One answer: status, parsed body, milliseconds, and a 429's `Retry-After` in milliseconds (null otherwise). */
export interface CallResult {
  status: number;
  body: unknown;
  ms: number;
  retryAfterMs: number | null;
}

/** JSON over fetch with a bearer key. */
export async function call(
  url: string,
  key: string,
  method: string,
  path: string,
  json?: unknown,
): Promise<CallResult> {
  const started = performance.now();
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (json !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url + path, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* a download or text body */
  }
  const after = Number(res.headers.get('retry-after'));
  const retryAfterMs = res.status === 429 ? (Number.isFinite(after) && after > 0 ? after * 1000 : 1000) : null;
  return { status: res.status, body, ms: performance.now() - started, retryAfterMs };
}

/**
 * `send` again after each 429 once its `Retry-After` has passed, as a well-behaved
 * client does, until `budgetMs` of waiting is spent (then the 429 is the answer).
 * `waits` counts the 429s waited out.
 */
export async function honourRetryAfter<T extends { status: number; retryAfterMs: number | null }>(
  send: () => Promise<T>,
  budgetMs = 120_000,
): Promise<T & { waits: number }> {
  let waited = 0;
  for (let waits = 0; ; waits++) {
    const r = await send();
    if (r.status !== 429 || r.retryAfterMs === null || waited + r.retryAfterMs > budgetMs) return { ...r, waits };
    await sleep(r.retryAfterMs);
    waited += r.retryAfterMs;
  }
}

export { percentile } from '../../bench/stats.js';

/** Polls `fn` until it answers true or `ms` pass; answers whether it did. */
export async function eventually(fn: () => Promise<boolean>, ms: number, every = 500): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await fn().catch(() => false)) return true;
    await sleep(every);
  }
  return fn().catch(() => false);
}
