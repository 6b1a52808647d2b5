import { purgeUsage } from '../../data/usage/usage.queries.js';
import type { BackgroundWorker, WorkerDeps } from '../background-worker.js';

/** How often usage past the retention period is deleted. */
const PURGE_EVERY_MS = 3_600_000;

/** Deletes API usage counts older than `CDS_RETENTION_DAYS`, hourly (any process may: a delete by age is safe to repeat). */
export function createUsagePurgeWorker(deps: WorkerDeps): BackgroundWorker {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const tick = (): void => {
    const before = new Date(Date.now() - deps.config.retentionDays * 86_400_000);
    running = purgeUsage(deps.state, before)
      .then((n) => n > 0 && deps.logger.info({ deleted: n }, 'API usage past retention purged'))
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'API usage purge failed'));
  };
  return {
    name: 'usage-purge',
    start() {
      tick();
      timer = setInterval(tick, PURGE_EVERY_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
