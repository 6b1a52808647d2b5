import { readFileSync, writeFileSync, existsSync, chmodSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import { authenticate, createKey } from '../data/keys/key.service.js';
import { ensureDemoAccount, DEMO_ACCOUNT_NAME } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import type { StateDb } from '../data/state/state-db.js';
import type { Store } from '../data/store.js';

/** A started service process (embedded, or one process of a cluster). */
export interface RunningService {
  /** The HTTP server's address; null when `CDS_ROLES` leaves out `server` (a worker-only process). */
  url: string | null;
  demoKey: string | null;
  /** The analytical store this process reads; null for a cluster process without one (webhooks only, a standby writer). */
  store: Store | null;
  /** Finishes in-flight requests, stops the workers, closes the store. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Called with seeding progress on first start. */
  onSeedProgress?: (step: string, done: number, total: number) => void;
  logger?: Logger;
}

/** The demo account, the demo data when the store is empty, and the demo key to print. */
export async function prepareDemo(
  store: Store,
  state: StateDb,
  config: Readonly<Config>,
  options: StartOptions,
): Promise<string> {
  const account = await ensureDemoAccount(state);
  const empty = ((await store.one<{ n: number }>('SELECT count(*) AS n FROM creators'))?.n ?? 0) === 0;
  if (empty) {
    await seedDemoData(store, {
      creators: config.demoCreators,
      seed: config.demoSeed,
      asOf: new Date().toISOString().slice(0, 10),
      demoAccountId: account.account_id,
      onProgress: options.onSeedProgress,
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
  const created = await createKey(state, { account: DEMO_ACCOUNT_NAME, plan: 'entry', name: 'demo key' });
  writeFileSync(path, `${created.key}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return created.key;
}

/** The configured port is held by another process: found before any slow start-up work (a demo seed). */
export class PortInUseError extends Error {
  override name = 'PortInUseError';
}

/**
 * Fails at once when the configured host and port cannot be listened on, so a
 * busy port is reported before a first start spends a minute seeding; the real
 * listen follows later. Port 0 (any free port) always passes.
 */
export async function assertPortFree(config: Readonly<Config>): Promise<void> {
  if (config.port === 0) return;
  const probe = createNetServer();
  await new Promise<void>((resolveProbe, reject) => {
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new PortInUseError(
              `port ${config.port} on ${config.host} is in use by another process; stop it or start with PORT=<another port>`,
            )
          : error,
      ),
    );
    probe.listen(config.port, config.host, () => probe.close(() => resolveProbe()));
  });
}

/** Listens on the configured host and port (HTTPS when TLS is configured), with load-balancer-friendly keep-alive. */
export async function listen(
  config: Readonly<Config>,
  handler: Parameters<typeof createHttpServer>[1],
): Promise<Server> {
  const server = config.tls
    ? createHttpsServer({ cert: readFileSync(config.tls.certPath), key: readFileSync(config.tls.keyPath) }, handler)
    : createHttpServer(handler);
  setTimeouts(server, config.keepAliveTimeoutMs);
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolveListen());
  });
  return server;
}

/**
 * Keep-alive longer than a load balancer's idle timeout (60 s on common ones): were
 * the server to close first, the balancer could send on a closing socket and answer 502.
 * Headers get a second more, so a reused connection's next request is not cut short.
 */
function setTimeouts(server: Server, keepAliveTimeoutMs: number): void {
  server.keepAliveTimeout = keepAliveTimeoutMs;
  server.headersTimeout = keepAliveTimeoutMs + 1_000;
  if (server.requestTimeout > 0) server.requestTimeout = Math.max(server.requestTimeout, server.headersTimeout);
}

export function serviceUrl(config: Readonly<Config>, server: Server): string {
  const { port } = server.address() as AddressInfo;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${config.tls ? 'https' : 'http'}://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
}
