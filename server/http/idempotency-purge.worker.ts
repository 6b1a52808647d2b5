import type { BackgroundWorker, WorkerDeps } from '../background-worker.js';
import { purgeExpired } from './idempotency.queries.js';
import { IDEMPOTENCY_TTL_MS } from '../middleware/idempotency.middleware.js';

/** How often expired Idempotency-Key records are deleted. */
const PURGE_EVERY_MS = 3_600_000;

/** Deletes Idempotency-Key records past their 24 h replay window, hourly. */
export function createIdempotencyPurgeWorker(deps: WorkerDeps): BackgroundWorker {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const tick = (): void => {
    running = purgeExpired(deps.state, Date.now() - IDEMPOTENCY_TTL_MS)
      .then((n) => n > 0 && deps.logger.info({ deleted: n }, 'expired idempotency keys purged'))
      .catch((error: unknown) => deps.logger.warn({ err: error }, 'idempotency key purge failed'));
  };
  return {
    name: 'idempotency-purge',
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
