import type { PipelineDeps } from './engine/pipeline.js';
import { createInboxWatcher, createScheduler, type PipelineWorker } from './engine/scheduler.js';
import { PIPELINES } from './registry.js';

/**
 * The pipelines' background workers for `cds start`: the scheduler (the demo
 * feed only when the service runs with demo data) and the inbox watcher.
 */
export function createPipelineWorkers(deps: PipelineDeps): PipelineWorker[] {
  const scheduled = PIPELINES.filter((p) => p.name !== 'demo' || deps.config.demo);
  const inbox = PIPELINES.filter((p) => p.entity !== null);
  return [createScheduler(deps, scheduled), createInboxWatcher(deps, inbox)];
}
