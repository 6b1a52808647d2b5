// The cluster drill's PostgreSQL faults: a fast restart and a pause, mid-load,
// while every replica's /readyz is probed to show it keeps answering within 1 s.
import type { LocalPostgres } from '../test/helpers/cluster-kit.js';
import { eventually, sleep } from '../test/helpers/drill-kit.js';

/** How long a readiness probe may take (docs/scaling.md: /readyz answers within 1 s whatever PostgreSQL does). */
export const READY_BOUND_MS = 1_000;

export interface ReadinessRecord {
  probes: number;
  maxMs: number;
  /** Probes that took longer than the bound or got no answer: `url status ms`. */
  late: string[];
  notReady: number;
}

/** Probes `/readyz` of every url every `everyMs` until stopped. */
export function watchReadiness(urls: readonly string[], everyMs = 250): { stop(): Promise<ReadinessRecord> } {
  const record: ReadinessRecord = { probes: 0, maxMs: 0, late: [], notReady: 0 };
  let running = true;
  const loops = urls.map(async (url) => {
    while (running) {
      const started = performance.now();
      const status = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(5_000) }).then(
        (r) => r.status,
        () => 0,
      );
      const ms = performance.now() - started;
      record.probes++;
      record.maxMs = Math.max(record.maxMs, ms);
      if (status !== 200) record.notReady++;
      if (ms > READY_BOUND_MS || status === 0) record.late.push(`${url} ${status || 'no answer'} ${Math.round(ms)} ms`);
      await sleep(everyMs);
    }
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return record;
    },
  };
}

/** Every url's /readyz answers 200 (within `timeoutMs`); answers how long that took. */
async function allReady(urls: readonly string[], timeoutMs: number): Promise<number> {
  const started = Date.now();
  const ok = await eventually(
    async () => {
      const statuses = await Promise.all(
        urls.map((u) =>
          fetch(`${u}/readyz`).then(
            (r) => r.status,
            () => 0,
          ),
        ),
      );
      return statuses.every((s) => s === 200);
    },
    timeoutMs,
    100,
  );
  if (!ok) throw new Error(`the replicas were not ready again within ${timeoutMs / 1000} s of PostgreSQL's return`);
  return Date.now() - started;
}

/**
 * A fast restart of PostgreSQL, then (once every replica is ready again and a writer
 * holds the lock, so that the pause meets an active writer) a pause of `pauseMs`;
 * answers what it saw, one line each, for the drill's output.
 */
export async function postgresFaults(
  postgres: LocalPostgres,
  urls: readonly string[],
  pauseMs: number,
  writerElected: () => Promise<string>,
): Promise<string[]> {
  const lines: string[] = [];
  let started = Date.now();
  await postgres.restart();
  lines.push(
    `PostgreSQL restarted (fast shutdown, start) in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
      `every replica ready again ${((await allReady(urls, 60_000)) / 1000).toFixed(1)} s later; ${await writerElected()}`,
  );
  started = Date.now();
  postgres.pause();
  try {
    await sleep(pauseMs);
  } finally {
    postgres.resume();
  }
  lines.push(
    `PostgreSQL paused for ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
      `every replica ready again ${((await allReady(urls, 60_000)) / 1000).toFixed(1)} s after it resumed`,
  );
  return lines;
}
