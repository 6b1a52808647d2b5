import type { Logger } from '../config/logger.js';
import type { Role } from '../config/config.js';
import type { PingResult, StateDb } from '../data/state/state-db.js';
import type { BackgroundWorker } from '../core/background-worker.js';

/** What each role cannot do while PostgreSQL is away (the outage log line says it). */
const WAITING: Record<Role, string> = {
  pipelines:
    'the writer election (a standby) and the outbox relay (an active writer steps down when its lock session ends)',
  server: '/v1 requests (answered 503 unavailable meanwhile) and readiness (503)',
  webhooks: 'claiming and recording webhook deliveries',
  exports: 'claiming export jobs and looking for newer snapshots',
};

export interface StateWatchOptions {
  roles: readonly Role[];
  logger: Logger;
  /** How often PostgreSQL is probed (default 1 s). */
  everyMs?: number;
  /** How long one probe may take (default 800 ms). */
  timeoutMs?: number;
  /** How often a long outage is logged again (default 15 s). */
  remindEveryMs?: number;
  now?: () => number;
}

export interface StateWatch extends BackgroundWorker {
  /** The last probe's outcome (ok until a probe fails). */
  readonly status: PingResult;
  /** Probes once now (the timer calls it; tests call it). */
  probe(): Promise<PingResult>;
}

/**
 * Probes the shared state every second and logs an outage once when it starts,
 * again every `remindEveryMs` while it lasts, and once when it ends, saying what
 * this process waits for. The workers back off and resume by themselves; this
 * is the one place an operator reads what is going on.
 */
export function createStateWatch(state: StateDb, options: StateWatchOptions): StateWatch {
  const now = options.now ?? Date.now;
  const waitingFor = options.roles.map((r) => WAITING[r]).join('; ');
  let status: PingResult = { ok: true };
  let downSince: number | null = null;
  let remindedAt = 0;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;

  const note = (result: PingResult): void => {
    const t = now();
    if (!result.ok && downSince === null) {
      downSince = t;
      remindedAt = t;
      options.logger.warn(
        { reason: result.reason, waiting_for: waitingFor },
        'PostgreSQL is unreachable; waiting for it and retrying with backoff',
      );
    } else if (!result.ok && downSince !== null && t - remindedAt >= (options.remindEveryMs ?? 15_000)) {
      remindedAt = t;
      options.logger.warn(
        { reason: result.reason, seconds: Math.round((t - downSince) / 1000), waiting_for: waitingFor },
        'PostgreSQL is still unreachable; waiting',
      );
    } else if (result.ok && downSince !== null) {
      options.logger.info(
        { seconds: Math.round((t - downSince) / 100) / 10 },
        'PostgreSQL is reachable again; resuming',
      );
      downSince = null;
    }
    status = result;
  };

  const watch: StateWatch = {
    name: 'state-watch',
    get status() {
      return status;
    },
    async probe() {
      const result = state.ping ? await state.ping(options.timeoutMs ?? 800) : { ok: true as const };
      note(result);
      return result;
    },
    start() {
      const tick = (): void => {
        running = watch.probe().finally(() => {
          if (!stopped) timer = setTimeout(tick, options.everyMs ?? 1_000);
        });
      };
      timer = setTimeout(tick, options.everyMs ?? 1_000);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
  return watch;
}
