import type { BackgroundWorker, WorkerLog } from './background-worker.js';

/** How often a retention purge runs: hourly keeps the tables small without a visible load. */
export const PURGE_EVERY_MS = 3_600_000;

/** What one retention purge deletes, and the words its log lines use. */
export interface RetentionPurge {
  /** The worker's name (`idempotency-purge`, `usage-purge`). */
  name: string;
  /** What the log lines call the deleted rows (`expired idempotency keys`). */
  what: string;
  /** Deletes what is past retention now; answers the rows deleted. Must be safe to repeat on any process. */
  purge: () => Promise<number>;
  logger: WorkerLog;
  /** Between purges (default hourly); tests shorten it. */
  everyMs?: number;
}

/**
 * A worker that deletes rows past their retention at start and then on a
 * timer. A failed purge is logged and tried again next time (the rows wait an
 * hour longer, nothing is lost); `stop` waits for a purge in flight.
 */
export function createRetentionPurgeWorker(spec: RetentionPurge): BackgroundWorker {
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  const tick = (): void => {
    running = spec
      .purge()
      .then((n) => n > 0 && spec.logger.info({ deleted: n }, `${spec.what} purged`))
      .catch((error: unknown) => spec.logger.warn({ err: error }, `purge of ${spec.what} failed`));
  };
  return {
    name: spec.name,
    start() {
      tick();
      timer = setInterval(tick, spec.everyMs ?? PURGE_EVERY_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = null;
      await running;
    },
  };
}
