import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import type { Logger } from '../../config/logger.js';
import { DomainError } from '../../data/errors.js';
import type { Store } from '../../data/store.js';
import type { ExportFormat } from './export.config.js';
import { isTransientExportFailure } from './export.errors.js';
import { exportFilePath } from './export-files.js';
import * as q from './export-job.queries.js';
import { failExportJob, runExportJob } from './export.engine.js';

export interface ExportWorkerDeps {
  store: Store;
  config: Pick<Config, 'exportsDir' | 'exportTtlHours'>;
  logger: Logger;
}

export interface ExportWorkerOptions {
  /** How often to look for queued jobs when idle. */
  pollMs?: number;
  /** How often to remove expired files. */
  cleanupEveryMs?: number;
  /** Attempts per job when failures are transient (lock contention, interrupted I/O). */
  attempts?: number;
  now?: () => Date;
}

/** The export worker: the same shape as server/workers.ts's BackgroundWorker, plus steps tests can drive. */
export interface ExportWorker {
  name: string;
  start(): void;
  stop(): Promise<void>;
  /** Re-queues jobs a crash left running and removes half-written files; answers how many were re-queued. */
  recover(): Promise<number>;
  /** Runs the oldest queued job, if any; answers whether there was one. */
  runNext(): Promise<boolean>;
  /** Removes expired files and marks their jobs expired; answers how many. */
  cleanupExpired(): Promise<number>;
}

/** Runs queued exports one at a time (the machine's cores go to DuckDB's own threads) and expires old files. */
export function createExportWorker(deps: ExportWorkerDeps, options: ExportWorkerOptions = {}): ExportWorker {
  const now = options.now ?? (() => new Date());
  const pollMs = options.pollMs ?? 500;
  const cleanupEveryMs = options.cleanupEveryMs ?? 60_000;
  let timer: NodeJS.Timeout | null = null;
  let inFlight: Promise<void> = Promise.resolve();
  let stopping = false;
  let lastCleanup = 0;

  const worker: ExportWorker = {
    name: 'exports',
    start() {
      stopping = false;
      inFlight = worker.recover().then(() => undefined, (error) => deps.logger.error({ err: error }, 'export recovery failed'));
      schedule(0);
    },
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await inFlight;
    },
    recover: () => recoverInterrupted(deps),
    runNext: () => runNext(deps, options.attempts ?? 3, now),
    cleanupExpired: () => cleanupExpired(deps, now()),
  };

  function schedule(delay: number): void {
    if (stopping) return;
    timer = setTimeout(() => {
      inFlight = inFlight.then(tick).finally(() => schedule(pollMs));
    }, delay);
    timer.unref();
  }

  async function tick(): Promise<void> {
    try {
      if (Date.now() - lastCleanup >= cleanupEveryMs) {
        lastCleanup = Date.now();
        await worker.cleanupExpired();
      }
      while (!stopping && (await worker.runNext()));
    } catch (error) {
      deps.logger.error({ err: error }, 'export worker tick failed');
    }
  }

  return worker;
}

async function recoverInterrupted(deps: ExportWorkerDeps): Promise<number> {
  const ids = await q.runningExports(deps.store);
  for (const id of ids) await q.requeue(deps.store, id);
  for (const name of safeReaddir(deps.config.exportsDir)) {
    if (name.endsWith('.part')) rmSync(join(deps.config.exportsDir, name), { force: true });
  }
  if (ids.length > 0) deps.logger.warn({ exports: ids }, 're-queued exports interrupted by a restart');
  return ids.length;
}

async function runNext(deps: ExportWorkerDeps, attempts: number, now: () => Date): Promise<boolean> {
  const job = await q.claimNextQueued(deps.store, now());
  if (!job) return false;
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await runExportJob({ ...deps, now }, job);
      deps.logger.info({ export_id: job.export_id, rows: outcome.rowCount, bytes: outcome.bytes }, 'export succeeded');
      return true;
    } catch (error) {
      if (attempt < attempts && isTransientExportFailure(error)) {
        await sleep(backoffMs(attempt));
        continue;
      }
      deps.logger.error({ err: error, export_id: job.export_id }, 'export failed');
      await failExportJob(deps.store, job, publicMessage(error), now());
      return true;
    }
  }
}

/** What the job's `error` tells the API user: rule violations as they are, internals never. */
function publicMessage(error: unknown): string {
  if (error instanceof DomainError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  if (/No space left|ENOSPC|disk is full/i.test(message)) return 'the server ran out of disk space while writing the file; try again later';
  return 'the export could not be written because of an internal error; create it again or contact support';
}

async function cleanupExpired(deps: ExportWorkerDeps, now: Date): Promise<number> {
  const due = await q.dueForExpiry(deps.store, now);
  for (const row of due) {
    rmSync(exportFilePath(deps.config.exportsDir, row.export_id, row.format as ExportFormat), { force: true });
    await q.markExpired(deps.store, row.export_id);
  }
  return due.length;
}

function safeReaddir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function backoffMs(attempt: number): number {
  return 500 * 2 ** (attempt - 1) * (0.5 + Math.random());
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Runs one queued job now, in the caller's process (the CLI's `cds export`), unless
 * the worker already took it, in which case this waits for the worker to finish it.
 * Failures are recorded on the job like the worker's; answers the finished row.
 */
export async function runExportNow(
  deps: ExportWorkerDeps, exportId: string, accountId: string, onProgress?: (percent: number) => void,
): Promise<q.ExportRow> {
  const job = await q.claimExport(deps.store, exportId, new Date());
  if (job) {
    try {
      await runExportJob({ ...deps, onProgress }, job);
    } catch (error) {
      deps.logger.error({ err: error, export_id: exportId }, 'export failed');
      await failExportJob(deps.store, job, publicMessage(error), new Date());
    }
  }
  for (;;) {
    const row = await q.findExport(deps.store, accountId, exportId);
    if (!row || (row.status !== 'queued' && row.status !== 'running')) return row as q.ExportRow;
    onProgress?.(row.progress);
    await sleep(250);
  }
}
