import type { Server } from 'node:http';
import type { Config, Role } from '../config/config.js';
import { createLogger, type Logger } from '../config/logger.js';
import { secureDataFolder } from '../data/private-files.js';
import { SnapshotFollower } from '../data/snapshots/snapshot-follower.js';
import { backoffDelay } from '../data/state/backoff.js';
import { openState, type OpenedState } from '../data/state/open-state.js';
import { describeFailure, isUnreachable } from '../data/state/pg-state.js';
import type { StateDb } from '../data/state/state-db.js';
import { WriterElection } from '../data/state/writer-election.js';
import { Store } from '../data/store.js';
import { createWriterWorkers } from '../pipelines/cluster.workers.js';
import { startAdminChannel } from './admin/admin-channel.js';
import { createApp } from './app.js';
import { createStateWatch } from './state-watch.js';
import { listen, prepareDemo, serviceUrl, type RunningService, type StartOptions } from './process-kit.js';
import { createWorkers, type BackgroundWorker } from './workers.js';

/** The writer's part of a cluster process, once elected. */
interface ActiveWriter {
  store: Store;
  workers: BackgroundWorker[];
  admin: Server;
}

/**
 * Starts one process of a cluster (`CDS_DATABASE_URL` set): the shared state on
 * PostgreSQL; with `writer` (pipelines), a campaign for the writer lock and, once
 * elected, the store, the pipelines, the outbox relay and the snapshot publisher;
 * with `api` (server) or `exports`, the newest snapshot opened read-only and
 * followed; with `webhooks`, the delivery worker on the state alone.
 */
export async function startClusterService(
  config: Readonly<Config>,
  options: StartOptions = {},
): Promise<RunningService> {
  const cluster = config.cluster;
  if (!cluster) throw new Error('startClusterService needs CDS_DATABASE_URL');
  const logger = options.logger ?? createLogger(config);
  secureDataFolder(config);
  const { state, close } = await openStateWhenReachable(config, logger);
  const watch = createStateWatch(state, { roles: config.roles, logger });
  watch.start();
  const stops: Array<() => Promise<void>> = [close, () => watch.stop()];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.splice(0).reverse())
      await stop().catch((error: unknown) => logger.warn({ err: error }, 'stop step failed'));
  };
  try {
    let demoKey: string | null = null;
    if (config.roles.includes('pipelines')) {
      const writer = await campaignForWriter(config, state, logger, options, (key) => {
        demoKey = key;
      });
      stops.push(() => writer.stop());
    }
    const needsSnapshot = config.roles.includes('server') || config.roles.includes('exports');
    const follower = needsSnapshot ? await followSnapshots(config, state, logger) : null;
    if (follower) stops.push(() => follower.stop());
    const workers = createWorkers({
      store: follower?.store ?? null,
      state,
      config: withRoles(config, ['webhooks', 'exports', 'server']),
      logger,
    });
    for (const w of workers) w.start();
    stops.push(() => Promise.all(workers.map((w) => w.stop())).then(() => undefined));
    const app =
      follower && config.roles.includes('server')
        ? createApp({ store: follower.store, state, config, logger, stateStatus: () => watch.status })
        : null;
    const server = app ? await listen(config, app.callback()) : null;
    if (server && app) {
      stops.push(async () => {
        const closed = new Promise<void>((r) => server.close(() => r()));
        server.closeIdleConnections();
        await closed;
        await app.settle();
      });
    }
    const url = server ? serviceUrl(config, server) : null;
    logger.info({ url, roles: config.roles, instance: cluster.instanceName }, 'cluster process started');
    return { url, demoKey, store: follower?.store ?? null, stop: stopAll };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/**
 * Opens the shared state, waiting for PostgreSQL while it cannot be reached (a
 * process restarted by its supervisor during a PostgreSQL restart keeps trying,
 * backing off up to 5 s, and says so) rather than exiting and being restarted in a loop.
 */
async function openStateWhenReachable(config: Readonly<Config>, logger: Logger): Promise<OpenedState> {
  for (let failures = 1; ; failures++) {
    try {
      return await openState(config, null);
    } catch (error) {
      if (!isUnreachable(error)) throw error;
      const retryMs = backoffDelay(failures, 500);
      if (failures === 1 || failures % 10 === 0) {
        logger.warn(
          { reason: describeFailure(error), retry_ms: retryMs, failures },
          'PostgreSQL is unreachable at start; waiting for it',
        );
      }
      await new Promise((r) => setTimeout(r, retryMs));
    }
  }
}

/** A config that keeps only the roles in `keep` (the writer's own roles are started apart). */
function withRoles(config: Readonly<Config>, keep: readonly Role[]): Readonly<Config> {
  return Object.freeze({ ...config, roles: config.roles.filter((r) => keep.includes(r)) });
}

async function followSnapshots(config: Readonly<Config>, state: StateDb, logger: Logger): Promise<SnapshotFollower> {
  const cluster = config.cluster!;
  logger.info({ dir: cluster.snapshotsDir }, 'opening the newest snapshot (waiting for a writer to publish one)');
  const follower = await SnapshotFollower.open(state, {
    dir: cluster.snapshotsDir,
    reader: cluster.instanceName,
    store: { ...config.duckdb },
    prefetchIndex: config.searchIndex && config.roles.includes('server'),
    onSwitch: (version, ms, index) =>
      logger.info({ version, ms: Math.round(ms), search_index: index }, 'switched to a newer snapshot'),
    // the state watch logs an outage; a failure is a warning only when it starts a streak
    onError: (error, failures) =>
      logger[failures === 1 ? 'warn' : 'debug']({ err: error, failures }, 'could not check for a newer snapshot'),
  });
  follower.start(Math.min(1_000, cluster.snapshotIntervalMs));
  return follower;
}

/**
 * Campaigns for the writer lock. The active writer owns the DuckDB file; a
 * standby waits (its process serves its other roles meanwhile) and takes over
 * within about a second of the active writer's death. A writer that loses the
 * lock's session exits at once: another may already be writing.
 */
async function campaignForWriter(
  config: Readonly<Config>,
  state: StateDb,
  logger: Logger,
  options: StartOptions,
  onDemoKey: (key: string) => void,
): Promise<{ stop(): Promise<void> }> {
  let active: ActiveWriter | null = null;
  const election = new WriterElection(config.cluster!.databaseUrl, {
    name: config.cluster!.instanceName,
    onElected: async () => {
      logger.info('elected the active writer');
      try {
        active = await becomeWriter(config, state, logger, options, onDemoKey);
      } catch (error) {
        // holding the lock without writing would block every standby: give the lock up by exiting
        logger.fatal(
          { err: error },
          'elected, but could not start as the writer; exiting so that a standby takes over',
        );
        process.exit(70);
      }
    },
    onLost: (error) => {
      logger.fatal({ err: error }, 'lost the writer lock; exiting so that only one writer writes');
      process.exit(70);
    },
    onError: (error, failures) =>
      logger[failures === 1 ? 'warn' : 'debug'](
        { err: error, failures },
        'writer election attempt failed; retrying with backoff',
      ),
  });
  await election.start();
  if (!election.isActive) logger.info('standing by as writer: another process holds the writer lock');
  return {
    stop: async () => {
      const writer: ActiveWriter | null = active;
      if (writer) {
        await Promise.all(writer.workers.map((w) => w.stop()));
        await new Promise<void>((r) => writer.admin.close(() => r()));
        await writer.store.close();
      }
      await election.stop();
    },
  };
}

async function becomeWriter(
  config: Readonly<Config>,
  state: StateDb,
  logger: Logger,
  options: StartOptions,
  onDemoKey: (key: string) => void,
): Promise<ActiveWriter> {
  const store = await Store.open(config.dbPath, { ...config.duckdb, onRecovered: (message) => logger.warn(message) });
  if (config.demo) onDemoKey(await prepareDemo(store, state, config, options));
  const workers = [
    ...createWorkers({ store, state, config: withRoles(config, ['pipelines']), logger }),
    ...createWriterWorkers({ store, state, config, logger }),
  ];
  for (const w of workers) w.start();
  const admin = await startAdminChannel(config.adminSocketPath, { store, state, config });
  return { store, workers, admin };
}
