import { watch, type FSWatcher } from 'node:fs';
import type { BackgroundWorker } from '../../core/background-worker.js';
import { privateDir } from '../../data/private-files.js';
import cron, { type ScheduledTask } from 'node-cron';
import { INBOX_SETTLE_MS, inboxHasFiles } from '../sources/inbox.source.js';
import type { PipelineDefinition, PipelineDeps, PipelineOutcome } from './pipeline.js';
import { runPipeline } from './runner.js';

/** Runs that are in flight, so stopping can wait for them. */
class InFlight {
  private readonly runs = new Set<Promise<unknown>>();
  track(p: Promise<PipelineOutcome>): Promise<PipelineOutcome> {
    this.runs.add(p);
    void p.finally(() => this.runs.delete(p)).catch(() => undefined);
    return p;
  }
  async settle(): Promise<void> {
    await Promise.allSettled([...this.runs]);
  }
}

/**
 * The scheduler: each pipeline with a schedule on node-cron in UTC. Runs never
 * overlap — node-cron's `noOverlap` skips a tick while the last one runs, and
 * `runPipeline` refuses a second concurrent run of the same pipeline anyway.
 */
export function createScheduler(deps: PipelineDeps, pipelines: readonly PipelineDefinition[]): BackgroundWorker {
  const inFlight = new InFlight();
  let tasks: ScheduledTask[] = [];
  let stopped = false;
  const tick = (p: PipelineDefinition): Promise<PipelineOutcome> | undefined => {
    if (stopped) return undefined;
    return inFlight.track(
      runPipeline(deps, p).catch((error: unknown) => {
        deps.logger?.warn({ err: error, pipeline: p.name }, 'scheduled pipeline run failed');
        return { pipeline: p.name, runs: [] };
      }),
    );
  };
  return {
    name: 'pipeline-scheduler',
    start() {
      tasks = pipelines
        .filter((p) => p.schedule !== null)
        .map((p) =>
          cron.schedule(p.schedule ?? '', () => tick(p), {
            timezone: 'UTC',
            noOverlap: true,
            name: `pipeline:${p.name}`,
            logger: cronLogger(deps),
          }),
        );
    },
    async stop() {
      stopped = true;
      await Promise.all(
        tasks.map(async (t) => {
          await t.stop();
          await t.destroy();
        }),
      );
      await inFlight.settle();
    },
  };
}

/** node-cron's own log lines: a skipped overlapping tick is expected, only its errors are worth a line. */
function cronLogger(deps: PipelineDeps): {
  info: (m: string) => void;
  warn: (m: string) => void;
  error: (m: string | Error) => void;
  debug: (m: string | Error) => void;
} {
  const quiet = (): void => undefined;
  return { info: quiet, warn: quiet, debug: quiet, error: (m) => deps.logger?.warn({ err: m }, 'node-cron error') };
}

/**
 * Watches the inbox folder so a dropped file loads within seconds instead of at
 * the next minute; the file must first sit still for `settleMs` (half-copied files wait).
 */
export function createInboxWatcher(
  deps: PipelineDeps,
  pipelines: readonly PipelineDefinition[],
  settleMs = INBOX_SETTLE_MS,
): BackgroundWorker {
  const inFlight = new InFlight();
  let watcher: FSWatcher | null = null;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const arm = (): void => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void runAll(), settleMs + 250);
  };
  const runAll = async (): Promise<void> => {
    for (const p of pipelines) {
      if (stopped) return;
      await inFlight.track(runPipeline(deps, p).catch(() => ({ pipeline: p.name, runs: [] })));
    }
    // A file that was still settling gets another look; loaded and failed ones have moved out.
    if (!stopped && (await inboxHasFiles(deps.config.inboxDir))) arm();
  };
  return {
    name: 'pipeline-inbox-watcher',
    start() {
      privateDir(deps.config.inboxDir);
      watcher = watch(deps.config.inboxDir, arm);
      watcher.on('error', (error) => deps.logger?.warn({ err: error }, 'inbox watcher failed'));
      // Files that arrived while no process watched (a writer elected after a failover, a restart) are taken at once,
      // not at the scheduler's next tick.
      void inboxHasFiles(deps.config.inboxDir).then(
        (has) => {
          if (has && !stopped) arm();
        },
        () => undefined,
      );
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      watcher?.close();
      await inFlight.settle();
    },
  };
}
