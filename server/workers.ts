import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import type { StateDb } from '../data/state/state-db.js';
import type { Store } from '../data/store.js';
import { createSyncWorkers } from '../connectors/warehouse/scheduler.js';
import { createExportWorker } from '../connectors/exports/index.js';
import { DeliveryWorker, webhookWorkerOptions } from '../connectors/webhooks/index.js';
import { createPipelineWorkers } from '../pipelines/workers.js';
import { createIdempotencyPurgeWorker } from './http/idempotency-purge.worker.js';

/** A background loop the service runs beside the HTTP server (scheduler, webhook and export workers). */
export interface BackgroundWorker {
  name: string;
  start(): void;
  /** Stops taking new work and waits for work in flight. */
  stop(): Promise<void>;
}

export interface WorkerDeps {
  /** The analytical store; null in a cluster process that has none (a webhooks-only worker). */
  store: Store | null;
  /** The service state (the store itself in the embedded default). */
  state: StateDb;
  config: Readonly<Config>;
  logger: Logger;
}

/** The workers `cds start` runs, filtered by the configured roles. */
export function createWorkers(deps: WorkerDeps): BackgroundWorker[] {
  const workers: BackgroundWorker[] = [];
  const { store } = deps;
  if (deps.config.roles.includes('pipelines') && store) workers.push(...createSyncWorkers({ ...deps, store }));
  if (deps.config.roles.includes('pipelines') && store) workers.push(...createPipelineWorkers({ ...deps, store }));
  if (deps.config.roles.includes('webhooks')) workers.push(new DeliveryWorker(deps.state, webhookWorkerOptions(deps.config), deps.logger));
  if (deps.config.roles.includes('exports') && store) workers.push(createExportWorker({ ...deps, store }));
  if (deps.config.roles.includes('server')) workers.push(createIdempotencyPurgeWorker(deps));
  return workers;
}
