import { createSyncWorkers } from '../connectors/warehouse/scheduler.js';
import { createExportWorker } from '../connectors/exports/index.js';
import { DeliveryWorker, webhookWorkerOptions } from '../connectors/webhooks/index.js';
import { createPipelineWorkers } from '../pipelines/workers.js';
import type { BackgroundWorker } from '../core/background-worker.js';
import { createIdempotencyPurgeWorker, createUsagePurgeWorker } from './purge.workers.js';
import type { WorkerDeps } from './background-worker.js';

export type { BackgroundWorker } from '../core/background-worker.js';
export type { WorkerDeps } from './background-worker.js';

/** The workers `cds start` runs, filtered by the configured roles. */
export function createWorkers(deps: WorkerDeps): BackgroundWorker[] {
  const workers: BackgroundWorker[] = [];
  const { store } = deps;
  if (deps.config.roles.includes('pipelines') && store) workers.push(...createSyncWorkers({ ...deps, store }));
  if (deps.config.roles.includes('pipelines') && store) workers.push(...createPipelineWorkers({ ...deps, store }));
  if (deps.config.roles.includes('webhooks'))
    workers.push(new DeliveryWorker(deps.state, webhookWorkerOptions(deps.config), deps.logger));
  if (deps.config.roles.includes('exports') && store) workers.push(createExportWorker({ ...deps, store }));
  if (deps.config.roles.includes('server'))
    workers.push(createIdempotencyPurgeWorker(deps), createUsagePurgeWorker(deps));
  return workers;
}
