import { createRetentionPurgeWorker } from '../core/retention-purge.worker.js';
import type { BackgroundWorker } from '../core/background-worker.js';
import { purgeUsage } from '../data/usage/usage.queries.js';
import type { WorkerDeps } from './background-worker.js';
import { purgeExpired } from './http/idempotency.queries.js';
import { IDEMPOTENCY_TTL_MS } from './middleware/idempotency.middleware.js';

/** Deletes Idempotency-Key records past their 24 h replay window, hourly. */
export function createIdempotencyPurgeWorker(deps: WorkerDeps): BackgroundWorker {
  return createRetentionPurgeWorker({
    name: 'idempotency-purge',
    what: 'expired idempotency keys',
    logger: deps.logger,
    purge: () => purgeExpired(deps.state, Date.now() - IDEMPOTENCY_TTL_MS),
  });
}

/** Deletes API usage counts older than `CDS_RETENTION_DAYS`, hourly (any process may: a delete by age is safe to repeat). */
export function createUsagePurgeWorker(deps: WorkerDeps): BackgroundWorker {
  return createRetentionPurgeWorker({
    name: 'usage-purge',
    what: 'API usage past retention',
    logger: deps.logger,
    purge: () => purgeUsage(deps.state, new Date(Date.now() - deps.config.retentionDays * 86_400_000)),
  });
}
