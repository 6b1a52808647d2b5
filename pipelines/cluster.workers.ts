import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import { SnapshotIndexWriter } from '../data/snapshots/snapshot-index.js';
import { copyIfChanged, finishPublish, pruneSnapshots } from '../data/snapshots/snapshot-publisher.js';
import { mirrorAccounts, pruneRelayedEvents, relayOutbox } from '../data/state/outbox-relay.js';
import type { StateDb } from '../data/state/state-db.js';
import type { Store } from '../data/store.js';
import { serialiseLoad } from './engine/run-lock.js';
import type { BackgroundWorker } from '../core/background-worker.js';

export interface WriterDeps {
  store: Store;
  state: StateDb;
  config: Readonly<Config>;
  logger: Logger;
}

/** How often the relay copies the outbox to PostgreSQL (and accounts back). */
const RELAY_MS = 1_000;
/** How often relayed events past the retention period leave the writer's store. */
const PRUNE_MS = 60 * 60_000;

/**
 * What only the active writer of a cluster runs besides the pipelines: the
 * outbox relay (events and run records to PostgreSQL, accounts back for
 * validation) and the snapshot publisher. Both run in line with the loads.
 */
export function createWriterWorkers(deps: WriterDeps): BackgroundWorker[] {
  const cluster = deps.config.cluster;
  if (!cluster) return [];
  const publisher = {
    dir: cluster.snapshotsDir,
    by: cluster.instanceName,
    // replicas open the index of each snapshot instead of building it (docs/search.md, "The index as files")
    ...(deps.config.searchIndex ? { searchIndex: new SnapshotIndexWriter({ store: { ...deps.config.duckdb } }) } : {}),
  };
  let accounts: string | null = null;
  return [
    loop('outbox-relay', RELAY_MS, deps.logger, async () => {
      await serialiseLoad(deps.store, async () => {
        accounts = await mirrorAccounts(deps.state, deps.store, accounts);
        const relayed = await relayOutbox(deps.store, deps.state);
        if (relayed.events > 0) deps.logger.debug(relayed, 'outbox relayed');
      });
    }),
    loop('relayed-events-prune', PRUNE_MS, deps.logger, async () => {
      const before = new Date(Date.now() - deps.config.retentionDays * 86_400_000);
      const pruned = await serialiseLoad(deps.store, () => pruneRelayedEvents(deps.store, before));
      if (pruned > 0)
        deps.logger.info({ events: pruned }, 'pruned relayed events past retention from the writer store');
    }),
    loop(
      'snapshot-publisher',
      cluster.snapshotIntervalMs,
      deps.logger,
      async () => {
        // the copy while nothing writes; the index files (which read only the copy) and the record after, loads going on
        const copied = await serialiseLoad(deps.store, () => copyIfChanged(deps.store, deps.state, publisher));
        const published = copied ? await finishPublish(deps.state, copied, publisher) : null;
        if (published?.index?.kind === 'failed')
          deps.logger.warn(
            { version: published.version, error: published.index.error },
            'search index files not written for this snapshot; its replicas build their index',
          );
        if (published) {
          deps.logger.info(
            {
              version: published.version,
              bytes: published.bytes,
              ms: Math.round(published.publishMs),
              ...(published.index ? { index: published.index.kind, index_ms: Math.round(published.index.ms) } : {}),
            },
            'snapshot published',
          );
          await pruneSnapshots(deps.state, publisher);
        }
      },
      true,
    ),
  ];
}

/** A timer loop that never overlaps itself and logs (not throws) a failed pass. */
function loop(
  name: string,
  everyMs: number,
  logger: Logger,
  pass: () => Promise<void>,
  runAtStart = false,
): BackgroundWorker {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const tick = (): void => {
    running = pass()
      .catch((error: unknown) => logger.warn({ err: error, worker: name }, `${name} pass failed`))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, everyMs);
      });
  };
  return {
    name,
    start() {
      timer = setTimeout(tick, runAtStart ? 0 : everyMs);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
