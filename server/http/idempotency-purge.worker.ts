import type { BackgroundWorker, WorkerDeps } from '../background-worker.js';
import { purgeExpired } from './idempotency.queries.js';
import { IDEMPOTENCY_TTL_MS } from '../middleware/idempotency.middleware.js';
import { createRetentionPurgeWorker } from './retention-purge.worker.js';

/** Deletes Idempotency-Key records past their 24 h replay window, hourly. */
export function createIdempotencyPurgeWorker(deps: WorkerDeps): BackgroundWorker {
  return createRetentionPurgeWorker({
    name: 'idempotency-purge',
    what: 'expired idempotency keys',
    logger: deps.logger,
    purge: () => purgeExpired(deps.state, Date.now() - IDEMPOTENCY_TTL_MS),
  });
}
