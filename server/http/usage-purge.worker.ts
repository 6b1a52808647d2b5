import { purgeUsage } from '../../data/usage/usage.queries.js';
import type { BackgroundWorker, WorkerDeps } from '../background-worker.js';
import { createRetentionPurgeWorker } from './retention-purge.worker.js';

/** Deletes API usage counts older than `CDS_RETENTION_DAYS`, hourly (any process may: a delete by age is safe to repeat). */
export function createUsagePurgeWorker(deps: WorkerDeps): BackgroundWorker {
  return createRetentionPurgeWorker({
    name: 'usage-purge',
    what: 'API usage past retention',
    logger: deps.logger,
    purge: () => purgeUsage(deps.state, new Date(Date.now() - deps.config.retentionDays * 86_400_000)),
  });
}
