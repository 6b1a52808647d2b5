import { readFileSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Config } from '../config/config.js';
import { createLogger, type Logger } from '../config/logger.js';
import { authenticate, createKey } from '../data/keys/key.service.js';
import { ensureDemoAccount, DEMO_ACCOUNT_NAME } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import { openState } from '../data/state/open-state.js';
import type { StateDb } from '../data/state/state-db.js';
import { Store } from '../data/store.js';
import { startAdminChannel } from './admin/admin-channel.js';
import { createApp } from './app.js';
import { createWorkers, type BackgroundWorker } from './workers.js';

export interface RunningService {
  /** The HTTP server's address; null when `CDS_ROLES` leaves out `server` (a worker-only process). */
  url: string | null;
  demoKey: string | null;
  store: Store;
  /** Finishes in-flight requests, stops the workers, closes the store. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Called with seeding progress on first start. */
  onSeedProgress?: (step: string, done: number, total: number) => void;
  logger?: Logger;
}

/** Starts everything `cds start` runs: store, demo data, server, admin channel, workers. */
export async function startService(config: Readonly<Config>, options: StartOptions = {}): Promise<RunningService> {
  const logger = options.logger ?? createLogger(config);
  const store = await Store.open(config.dbPath, { memoryLimit: config.duckdb.memoryLimit, threads: config.duckdb.threads });
  const opened = await openState(config, store).catch(async (error: unknown) => {
    await store.close().catch(() => undefined);
    throw error;
  });
  const { state } = opened;
  try {
    const demoKey = config.demo ? await prepareDemo(store, state, config, options) : null;
    const workers = createWorkers({ store, state, config, logger });
    // Without the `server` role there is no HTTP server; the admin channel still runs (the CLI needs it).
    const app = config.roles.includes('server') ? createApp({ store, state, config, logger }) : null;
    const server = app ? await listen(config, app.callback()) : null;
    const admin = await startAdminChannel(config.adminSocketPath, { store, config });
    for (const w of workers) w.start();
    const url = server ? serviceUrl(config, server) : null;
    logger.info({ url, roles: config.roles, workers: workers.map((w) => w.name) }, 'service started');
    return { url, demoKey, store, stop: () => shutdown({ server, admin, workers, store, logger, settle: () => app?.settle() ?? Promise.resolve(), closeState: opened.close }) };
  } catch (error) {
    await opened.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
}

async function prepareDemo(store: Store, state: StateDb, config: Readonly<Config>, options: StartOptions): Promise<string> {
  const account = await ensureDemoAccount(state);
  const empty = ((await store.one<{ n: number }>('SELECT count(*) AS n FROM creators'))?.n ?? 0) === 0;
  if (empty) {
    await seedDemoData(store, {
      creators: config.demoCreators, seed: config.demoSeed, asOf: new Date().toISOString().slice(0, 10),
      demoAccountId: account.account_id, onProgress: options.onSeedProgress,
    });
  }
  return demoKey(state, config);
}

/**
 * The demo key is kept in a 0600 file in the data folder so each start can print
 * it (the store keeps only its hash); a revoked or missing one is replaced.
 */
async function demoKey(state: StateDb, config: Readonly<Config>): Promise<string> {
  const path = resolve(config.dataDir, 'demo-api-key');
  if (existsSync(path)) {
    const saved = readFileSync(path, 'utf8').trim();
    if (await authenticate(state, saved)) return saved;
  }
  const created = await createKey(state, { account: DEMO_ACCOUNT_NAME, plan: 'entry' });
  writeFileSync(path, `${created.key}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return created.key;
}

async function listen(config: Readonly<Config>, handler: Parameters<typeof createHttpServer>[1]): Promise<Server> {
  const server = config.tls
    ? createHttpsServer({ cert: readFileSync(config.tls.certPath), key: readFileSync(config.tls.keyPath) }, handler)
    : createHttpServer(handler);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolveListen());
  });
  return server;
}

function serviceUrl(config: Readonly<Config>, server: Server): string {
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${config.tls ? 'https' : 'http'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
}

async function shutdown(parts: {
  server: Server | null; admin: Server; workers: BackgroundWorker[]; store: Store; logger: Logger; settle: () => Promise<void>;
  closeState: () => Promise<void>;
}): Promise<void> {
  const { server } = parts;
  const closed = server ? new Promise<void>((r) => server.close(() => r())) : Promise.resolve();
  server?.closeIdleConnections();
  await Promise.all(parts.workers.map((w) => w.stop()));
  await closed;
  await new Promise<void>((r) => parts.admin.close(() => r()));
  await parts.settle();
  await parts.closeState();
  await parts.store.close();
  parts.logger.info('service stopped');
}
