import type { Server } from 'node:http';
import { setIndexFileMapping } from '../data/creators/search-index/mapped-file.js';
import type { Config } from '../config/config.js';
import { createLogger, type Logger } from '../config/logger.js';
import { secureDataFolder } from '../data/private-files.js';
import { openState } from '../data/state/open-state.js';
import { Store } from '../data/store.js';
import { recoverPendingDerivations } from '../pipelines/engine/runner.js';
import { startAdminChannel } from './admin/admin-channel.js';
import { createApp } from './app.js';
import { startClusterService } from './cluster.js';
import {
  assertPortFree,
  listen,
  prepareDemo,
  serviceUrl,
  type RunningService,
  type StartOptions,
} from './process-kit.js';
import { createWorkers, type BackgroundWorker } from './workers.js';

export type { RunningService, StartOptions } from './process-kit.js';

/**
 * Starts everything `cds start` runs: store, demo data, server, admin channel,
 * workers — or, in cluster mode (`CDS_DATABASE_URL`), this process's roles of a cluster.
 */
export async function startService(config: Readonly<Config>, options: StartOptions = {}): Promise<RunningService> {
  // how this process opens search index files, the embedded store's and a cluster's snapshots' alike
  setIndexFileMapping(config.searchIndexMmap);
  if (config.cluster) return startClusterService(config, options);
  const logger = options.logger ?? createLogger(config);
  secureDataFolder(config);
  if (config.roles.includes('server')) await assertPortFree(config);
  const store = await Store.open(config.dbPath, { ...config.duckdb, onRecovered: (message) => logger.warn(message) });
  const opened = await openState(config, store).catch(async (error: unknown) => {
    await store.close().catch(() => undefined);
    throw error;
  });
  const { state } = opened;
  try {
    const demoKey = config.demo ? await prepareDemo(store, state, config, options) : null;
    // What a crash left underived after a load's commit (new creators' scores, loaded posts' tags) is derived before anything is served.
    await recoverPendingDerivations(store);
    const workers = createWorkers({ store, state, config, logger });
    // Without the `server` role there is no HTTP server; the admin channel still runs (the CLI needs it).
    const app = config.roles.includes('server') ? createApp({ store, state, config, logger }) : null;
    const server = app ? await listen(config, app.callback()) : null;
    const admin = await startAdminChannel(config.adminSocketPath, { store, state, config });
    for (const w of workers) w.start();
    const url = server ? serviceUrl(config, server) : null;
    logger.info({ url, roles: config.roles, workers: workers.map((w) => w.name) }, 'service started');
    return {
      url,
      demoKey,
      store,
      stop: () =>
        shutdown({
          server,
          admin,
          workers,
          store,
          logger,
          settle: () => app?.settle() ?? Promise.resolve(),
          closeState: opened.close,
        }),
    };
  } catch (error) {
    await opened.close().catch(() => undefined);
    await store.close().catch(() => undefined);
    throw error;
  }
}

async function shutdown(parts: {
  server: Server | null;
  admin: Server;
  workers: BackgroundWorker[];
  store: Store;
  logger: Logger;
  settle: () => Promise<void>;
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
