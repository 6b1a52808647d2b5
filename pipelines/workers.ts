import type { PipelineDeps } from './engine/pipeline.js';
import type { BackgroundWorker } from '../core/background-worker.js';
import { createInboxWatcher, createScheduler } from './engine/scheduler.js';
import { recoverInterruptedRuns, recoverPendingDerivations } from './engine/runner.js';
import { allPipelines, PIPELINES } from './registry.js';

/**
 * The pipelines' background workers for `cds start`: the scheduler (the demo
 * feed only when the service runs with demo data, and the configured sources) and the inbox watcher.
 */
export function createPipelineWorkers(deps: PipelineDeps): BackgroundWorker[] {
  // The configured sources (CDS_SOURCES) are scheduled too; a bad sources file stops the start, naming what to fix.
  const scheduled = allPipelines(deps.config).filter((p) => p.name !== 'demo' || deps.config.demo);
  const inbox = PIPELINES.filter((p) => p.entity !== null);
  return [recoveryWorker(deps), createScheduler(deps, scheduled), createInboxWatcher(deps, inbox)];
}

/**
 * At start, marks failed the runs a crash left `running`, and finishes the
 * derivation a crash left pending after a load's commit (both queued ahead of any load).
 */
function recoveryWorker(deps: PipelineDeps): BackgroundWorker {
  let done: Promise<unknown> = Promise.resolve();
  return {
    name: 'pipeline-run-recovery',
    start() {
      const runs = recoverInterruptedRuns(deps.store).then(
        (n) => {
          if (n > 0) deps.logger?.warn({ runs: n }, 'marked runs interrupted by a restart as failed');
        },
        (error: unknown) => deps.logger?.warn({ err: error }, 'could not mark interrupted runs'),
      );
      const derived = recoverPendingDerivations(deps.store).then(
        (n) => {
          if (n > 0)
            deps.logger?.warn(
              { creators: n },
              'derived the creators a restart left pending after their load (new creators, or posts loaded)',
            );
        },
        (error: unknown) => deps.logger?.warn({ err: error }, 'could not derive the creators a restart left pending'),
      );
      done = Promise.all([runs, derived]);
    },
    stop: () => done.then(() => undefined),
  };
}
