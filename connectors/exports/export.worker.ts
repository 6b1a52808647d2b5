import type { BackgroundWorker } from '../../core/background-worker.js';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import type { Logger } from '../../config/logger.js';
import { DomainError } from '../../data/errors.js';
import { randomString } from '../../data/ids.js';
import { backoffDelay } from '../../data/state/backoff.js';
import type { StateDb } from '../../data/state/state-db.js';
import type { Store } from '../../data/store.js';
import type { ExportFormat } from './export.config.js';
import { ExportDiskLowError, isTransientExportFailure } from './export.errors.js';
import { exportFilePath, tempFileAttempt } from './export-files.js';
import * as q from './export-job.queries.js';
import { DEFAULT_LEASE_MS, ExportLeaseLostError, failExportJob, runExportJob } from './export.engine.js';

export interface ExportWorkerDeps {
  /** The analytical store the rows are read from. */
  store: Store;
  /** The service state: the jobs (shared by every worker process in cluster mode). */
  state: StateDb;
  config: Pick<Config, 'exportsDir' | 'exportTtlHours' | 'exportMinFreeBytes' | 'exportConcurrency'>;
  logger: Logger;
  /** Free space of the file system holding a path; node's `fs.statfs` unless a test gives another. */
  freeBytes?: (path: string) => Promise<number>;
}

export interface ExportWorkerOptions {
  /** How often to look for queued jobs when idle. */
  pollMs?: number;
  /** How often to remove expired files. */
  cleanupEveryMs?: number;
  /** Attempts per job when failures are transient (lock contention, interrupted I/O). */
  attempts?: number;
  /**
   * How long a claimed job stays this worker's without renewal (renewed every
   * third of it while it runs); another worker may take the job once it ran out.
   */
  leaseMs?: number;
  /** Jobs run at once; `config.exportConcurrency` unless given. */
  concurrency?: number;
  now?: () => Date;
}

/** The export worker: a background worker, plus steps tests can drive. */
export interface ExportWorker extends BackgroundWorker {
  /**
   * Re-queues jobs a crash left running (in cluster mode: whose lease ran out)
   * and removes half-written files no running attempt owns; answers how many were re-queued.
   */
  recover(): Promise<number>;
  /** Claims the next queued job (fairly across accounts) and runs it, if any; answers whether there was one. */
  runNext(): Promise<boolean>;
  /** Removes expired files and marks their jobs expired; answers how many. */
  cleanupExpired(): Promise<number>;
}

/**
 * Runs queued exports, up to `concurrency` at once (default
 * `config.exportConcurrency`), taken fairly across accounts (`claimNextQueued`),
 * and expires old files. Several processes may each run theirs against the same
 * state (cluster mode): a job is claimed under a lease, never by two.
 */
export function createExportWorker(deps: ExportWorkerDeps, options: ExportWorkerOptions = {}): ExportWorker {
  const now = options.now ?? (() => new Date());
  const pollMs = options.pollMs ?? 500;
  const cleanupEveryMs = options.cleanupEveryMs ?? 60_000;
  const concurrency = options.concurrency ?? deps.config.exportConcurrency;
  const runOptions: RunOptions = { attempts: options.attempts ?? 3, leaseMs: options.leaseMs ?? DEFAULT_LEASE_MS, now };
  const active = new Set<Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let filling: Promise<void> = Promise.resolve();
  let stopping = false;
  let lastCleanup = 0;
  /** Ticks failed in a row (the state unreachable): the poll backs off, up to 5 s. */
  let failures = 0;

  const worker: ExportWorker = {
    name: 'exports',
    start() {
      stopping = false;
      filling = worker.recover().then(
        () => undefined,
        (error) => deps.logger.error({ err: error }, 'export recovery failed'),
      );
      schedule(0);
    },
    async stop() {
      stopping = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await filling;
      await Promise.all(active);
    },
    recover: () => recoverInterrupted(deps, now()),
    async runNext() {
      const job = await q.claimNextQueued(deps.state, newClaim(now(), runOptions.leaseMs));
      if (job) await runClaimed(deps, job, runOptions);
      return job !== undefined;
    },
    cleanupExpired: () => cleanupExpired(deps, now()),
  };

  function schedule(delay: number): void {
    if (stopping) return;
    timer = setTimeout(() => {
      void fill(true).finally(() => schedule(backoffDelay(failures, pollMs)));
    }, delay);
    timer.unref();
  }

  /** Claims jobs into free slots, one fill at a time; a finished job fills its slot at once. */
  function fill(withCleanup = false): Promise<void> {
    filling = filling.then(() => fillSlots(withCleanup));
    return filling;
  }

  async function fillSlots(withCleanup: boolean): Promise<void> {
    try {
      if (withCleanup && Date.now() - lastCleanup >= cleanupEveryMs) {
        lastCleanup = Date.now();
        await worker.cleanupExpired();
      }
      while (!stopping && active.size < concurrency) {
        const job = await q.claimNextQueued(deps.state, newClaim(now(), runOptions.leaseMs));
        if (!job) return;
        const run: Promise<void> = runClaimed(deps, job, runOptions)
          .catch((error: unknown) =>
            deps.logger.error({ err: error, export_id: job.export_id }, 'export worker job failed'),
          )
          .finally(() => {
            active.delete(run);
            if (!stopping) void fill();
          });
        active.add(run);
      }
      failures = 0;
    } catch (error) {
      failures += 1;
      if (failures === 1)
        deps.logger.error({ err: error }, 'export worker tick failed; backing off while it keeps failing');
      else deps.logger.debug({ err: error, failures }, 'export worker tick failed again');
    }
  }

  return worker;
}

async function recoverInterrupted(deps: ExportWorkerDeps, now: Date): Promise<number> {
  const parts = tempFiles(deps.config.exportsDir);
  const requeued = await q.requeueInterrupted(deps.state, now);
  await removeDeadTempFiles(deps, parts);
  if (requeued.length > 0)
    deps.logger.warn({ exports: requeued.map((r) => r.export_id) }, 're-queued exports interrupted by a restart');
  return requeued.length;
}

function tempFiles(dir: string): string[] {
  return safeReaddir(dir).filter((name) => name.endsWith('.part'));
}

/**
 * Removes listed temp files no running attempt owns. The list is taken before
 * the running attempts are read, so a file of an attempt that started meanwhile
 * is not in it; a dead attempt's file goes (in cluster mode the folder is shared,
 * and another process's live attempt keeps its file).
 */
async function removeDeadTempFiles(deps: ExportWorkerDeps, listed: readonly string[]): Promise<void> {
  if (listed.length === 0) return;
  const live = new Set(await q.runningAttempts(deps.state));
  for (const name of listed) {
    const attempt = tempFileAttempt(name);
    if (attempt === null || !live.has(attempt)) rmSync(join(deps.config.exportsDir, name), { force: true });
  }
}

interface RunOptions {
  attempts: number;
  leaseMs: number;
  now: () => Date;
}

/** A claim for this worker: a fresh attempt id and a lease from now. */
function newClaim(now: Date, leaseMs: number): q.Claim {
  return { attemptId: randomString(16), now, leaseUntil: new Date(now.getTime() + leaseMs) };
}

/** Runs a claimed job to its end: retries transient failures, records any other as the job's error. */
async function runClaimed(deps: ExportWorkerDeps, job: q.ClaimedExport, options: RunOptions): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await runExportJob({ ...deps, now: options.now, leaseMs: options.leaseMs }, job);
      deps.logger.info({ export_id: job.export_id, rows: outcome.rowCount, bytes: outcome.bytes }, 'export succeeded');
      return;
    } catch (error) {
      if (error instanceof ExportLeaseLostError) {
        deps.logger.warn({ export_id: job.export_id }, error.message);
        return;
      }
      if (attempt < options.attempts && isTransientExportFailure(error)) {
        await sleep(backoffMs(attempt));
        continue;
      }
      deps.logger.error({ err: error, export_id: job.export_id }, 'export failed');
      await failExportJob(deps.state, job, publicMessage(error), options.now());
      return;
    }
  }
}

/** What the job's `error` tells the API user: rule violations as they are, internals never. */
export function publicMessage(error: unknown): string {
  if (error instanceof DomainError || error instanceof ExportDiskLowError) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  if (/No space left|ENOSPC|disk is full/i.test(message))
    return 'the server ran out of disk space while writing the file; try again later';
  // DuckDB's own memory limit (CDS_DUCKDB_MEMORY_LIMIT), not a fault of the request: say what would make it fit
  if (/Out of Memory Error/i.test(message)) {
    return 'the export needed more memory than the server allows for one export; export fewer rows or fields, or ask the operator to raise its memory limit';
  }
  return 'the export could not be written because of an internal error; create it again or contact support';
}

async function cleanupExpired(deps: ExportWorkerDeps, now: Date): Promise<number> {
  // attempts whose worker died leave temp files; in cluster mode their jobs are taken over without a restart
  await removeDeadTempFiles(deps, tempFiles(deps.config.exportsDir));
  const due = await q.dueForExpiry(deps.state, now);
  for (const row of due) {
    rmSync(exportFilePath(deps.config.exportsDir, row.export_id, row.format as ExportFormat), { force: true });
    await q.markExpired(deps.state, row.export_id);
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
  deps: ExportWorkerDeps,
  exportId: string,
  accountId: string,
  onProgress?: (percent: number) => void,
): Promise<q.ExportRow> {
  const job = await q.claimExport(deps.state, exportId, newClaim(new Date(), DEFAULT_LEASE_MS));
  if (job) {
    try {
      await runExportJob({ ...deps, onProgress }, job);
    } catch (error) {
      deps.logger.error({ err: error, export_id: exportId }, 'export failed');
      await failExportJob(deps.state, job, publicMessage(error), new Date());
    }
  }
  for (;;) {
    const row = await q.findExport(deps.state, accountId, exportId);
    if (!row || (row.status !== 'queued' && row.status !== 'running')) return row as q.ExportRow;
    onProgress?.(row.progress);
    await sleep(250);
  }
}
