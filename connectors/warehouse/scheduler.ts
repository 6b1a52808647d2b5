import { join } from 'node:path';
import { schedule, type ScheduledTask } from 'node-cron';
import type { Config } from '../../config/config.js';
import type { BackgroundWorker } from '../../core/background-worker.js';
import type { Logger } from '../../config/logger.js';
import type { Store } from '../../data/store.js';
import { loadDestinations } from './destinations-file.js';
import { runSync, SyncBusyError } from './runner.js';

/** The scratch folder syncs stage their files in. */
export function syncWorkDir(config: Readonly<Config>): string {
  return join(config.dataDir, 'sync-tmp');
}

/**
 * Scheduled syncs: one cron task per destination that has a `schedule`; none
 * when no destination has one. A run still going when its next tick comes is
 * not started twice. Reading the destinations file here makes a bad file stop
 * start-up with its message.
 */
export function createSyncWorkers(deps: {
  store: Store;
  config: Readonly<Config>;
  logger: Logger;
}): BackgroundWorker[] {
  const scheduled = [...loadDestinations(deps.config.syncDestinationsPath)].filter(([, c]) => c.schedule !== undefined);
  if (scheduled.length === 0) return [];
  const tasks: ScheduledTask[] = [];
  const inFlight = new Set<Promise<unknown>>();
  const log = deps.logger.child({ worker: 'sync-scheduler' });
  const runOne = async (name: string, config: (typeof scheduled)[number][1]): Promise<void> => {
    try {
      const result = await runSync(deps.store, name, config, { workDir: syncWorkDir(deps.config) });
      const { tables: _tables, ...summary } = result;
      if (result.status === 'succeeded') log.info(summary, 'scheduled sync finished');
      else log.error(summary, 'scheduled sync failed');
    } catch (error) {
      if (error instanceof SyncBusyError) log.warn({ destination: name }, error.message);
      else log.error({ destination: name, err: error }, 'scheduled sync could not start');
    }
  };
  return [
    {
      name: 'sync-scheduler',
      start() {
        for (const [name, config] of scheduled) {
          tasks.push(
            schedule(
              config.schedule ?? '',
              () => {
                const p = runOne(name, config).finally(() => inFlight.delete(p));
                inFlight.add(p);
                return p;
              },
              { name: `sync:${name}`, noOverlap: true },
            ),
          );
        }
      },
      async stop() {
        await Promise.all(tasks.map((t) => t.stop()));
        await Promise.allSettled([...inFlight]);
      },
    },
  ];
}
