import { createHash } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import { open, statfs } from 'node:fs/promises';
import { basename } from 'node:path';
import { memoryLimitBytes, type Config } from '../../config/config.js';
import { newId } from '../../data/ids.js';
import { privateDir, privateFile } from '../../data/private-files.js';
import type { StateDb, StateQueryable } from '../../data/state/state-db.js';
import type { Store } from '../../data/store.js';
import type { ExportFormat, ExportSource } from './export.config.js';
import { resolveFields } from './export-fields.js';
import { ExportDiskLowError } from './export.errors.js';
import { exportFilePath, exportTempPath } from './export-files.js';
import { downloadPath } from './export-job.js';
import * as q from './export-job.queries.js';
import { exportQuerySql, sourceContext, withSourceConnection } from './export-source.js';
import { writeExportFile } from './export.writer.js';
import { deleteMatches } from './export-lookalikes.js';

export interface ExportEngineDeps {
  /** The analytical store the rows are read from. */
  store: Store;
  /** The service state: the job, its progress and its `export.completed` event. */
  state: StateDb;
  config: Pick<Config, 'exportsDir' | 'exportTtlHours' | 'exportMinFreeBytes'>;
  /** Free space of the file system holding a path; node's `fs.statfs` unless a test gives another. */
  freeBytes?: (path: string) => Promise<number>;
  now?: () => Date;
  /** How long a claim holds without renewal; renewed every third of it while the file is written. */
  leaseMs?: number;
  /** Also told of progress (the CLI shows it on a TTY). */
  onProgress?: (percent: number) => void;
}

/** How long a claimed job stays its worker's without a renewal, unless a worker says otherwise. */
export const DEFAULT_LEASE_MS = 60_000;

/** What a finished export wrote. */
export interface ExportOutcome {
  rowCount: number;
  bytes: number;
  sha256: string;
  fileName: string;
}

/**
 * The job's lease ran out and another worker took it (cluster mode): this
 * attempt publishes nothing and records nothing, the new owner finishes it.
 */
export class ExportLeaseLostError extends Error {
  override name = 'ExportLeaseLostError';
  constructor(readonly exportId: string) {
    super(`export ${exportId} was taken over by another worker after this worker's lease ran out`);
  }
}

/**
 * Writes one (running) export job's file and publishes it. The file is written
 * to a `.part` file of this attempt's own, hashed, then renamed into place, so a
 * crash never leaves a half file under the real name; the job's success and its
 * `export.completed` event are committed in one transaction, fenced by the
 * attempt (a worker whose lease ran out writes nothing).
 */
export async function runExportJob(deps: ExportEngineDeps, job: q.ClaimedExport): Promise<ExportOutcome> {
  const now = deps.now ?? (() => new Date());
  const format = job.format as ExportFormat;
  const source = JSON.parse(job.source) as ExportSource;
  const fields = resolveFields(source.type, job.fields ?? undefined);
  // a search counts back from the time the export was asked for, and excludes its lists' members as they are now
  const context = await sourceContext(deps.state, source, job.account_id, job.created_at.getTime());
  const query = exportQuerySql(source, job.account_id, fields, format, job.row_count ?? undefined, context);
  privateDir(deps.config.exportsDir);
  await assertDiskRoom(deps);
  const temp = exportTempPath(deps.config.exportsDir, job.export_id, format, job.attempt_id);
  const final = exportFilePath(deps.config.exportsDir, job.export_id, format);
  rmSync(temp, { force: true });
  const stored = jobReporter(deps.state, job, now, deps.leaseMs ?? DEFAULT_LEASE_MS);
  const progress = (percent: number): void => {
    stored.report(percent);
    deps.onProgress?.(percent);
  };
  let renamed = false;
  try {
    const rowCount = await withSourceConnection(
      deps.store,
      deps.state,
      source,
      job.account_id,
      (c) =>
        retryingOutOfMemory(deps.store, () =>
          writeExportFile(c, query, format, fields, temp, { expectedRows: job.row_count ?? 0, onProgress: progress }),
        ),
      job.export_id,
    );
    privateFile(temp); // DuckDB's COPY makes its file with the process umask
    const { bytes, sha256 } = await hashFile(temp);
    // no write of the reporter's may overlap the final transaction; the last renewal is the check that
    // the job is still this attempt's before its file replaces anything under the published name
    await stored.stop();
    if (!(await stored.renew())) throw new ExportLeaseLostError(job.export_id);
    renameSync(temp, final);
    renamed = true;
    const outcome = { rowCount, bytes, sha256, fileName: basename(final) };
    await publish(deps.state, job, outcome, now(), deps.config.exportTtlHours);
    return outcome;
  } catch (error) {
    await stored.stop();
    rmSync(temp, { force: true });
    // once the job is lost, the published name is the new owner's to write
    if (renamed && !(error instanceof ExportLeaseLostError)) rmSync(final, { force: true });
    throw error;
  }
}

/**
 * The memory limit an export that ran out of DuckDB's memory is written again with, when
 * the process's own limit is lower. An exports process runs with a small limit (96 MB,
 * docs/scaling.md), which holds a full 1M-row export of every format; DuckDB's hash join
 * and sort can still run out below it on some mid-sized subsets (a 200k-row search of a
 * 1M store did), and such an export should cost more memory, not fail.
 */
export const EXPORT_RETRY_MEMORY_LIMIT = '256MB';

/** Writes raised to the retry limit, per store: the limit is DuckDB's, for the whole process. */
const raised = new WeakMap<Store, number>();

/**
 * Runs `write`; when it runs out of DuckDB's memory under a process limit below
 * EXPORT_RETRY_MEMORY_LIMIT, runs it once more with the limit raised, then puts the
 * configured limit back (after the last of concurrent retries). `write` must start over.
 */
export async function retryingOutOfMemory<T>(store: Store, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const limit = store.memoryLimit;
    if (
      !isOutOfMemory(error) ||
      limit === null ||
      memoryLimitBytes(limit) >= memoryLimitBytes(EXPORT_RETRY_MEMORY_LIMIT)
    )
      throw error;
    const holders = raised.get(store) ?? 0;
    raised.set(store, holders + 1);
    if (holders === 0) await store.run(`SET memory_limit = '${EXPORT_RETRY_MEMORY_LIMIT}'`);
    try {
      return await write();
    } finally {
      const left = (raised.get(store) ?? 1) - 1;
      raised.set(store, left);
      if (left === 0) await store.run(`SET memory_limit = '${limit}'`); // the configured form, checked by memoryLimitBytes above
    }
  }
}

const isOutOfMemory = (error: unknown): boolean => error instanceof Error && /Out of Memory Error/i.test(error.message);

/** Refuses to start a job while the exports folder's file system is below the configured free-space floor. */
async function assertDiskRoom(deps: ExportEngineDeps): Promise<void> {
  const free = await (deps.freeBytes ?? freeBytesOf)(deps.config.exportsDir);
  if (free < deps.config.exportMinFreeBytes) throw new ExportDiskLowError(free, deps.config.exportMinFreeBytes);
}

/** Bytes an unprivileged writer may still use on the file system holding `path`. */
export async function freeBytesOf(path: string): Promise<number> {
  const stats = await statfs(path);
  return stats.bavail * stats.bsize;
}

async function publish(
  state: StateDb,
  job: q.ClaimedExport,
  outcome: ExportOutcome,
  finishedAt: Date,
  ttlHours: number,
): Promise<void> {
  const expiresAt = new Date(finishedAt.getTime() + ttlHours * 3_600_000);
  await state.transaction(
    async (tx) => {
      const owned = await q.markSucceeded(tx, job, {
        row_count: outcome.rowCount,
        bytes: outcome.bytes,
        sha256: outcome.sha256,
        file_name: outcome.fileName,
        finished_at: finishedAt,
        expires_at: expiresAt,
      });
      if (!owned) throw new ExportLeaseLostError(job.export_id);
      await deleteMatches(tx, job.export_id);
      await insertCompleted(tx, job, finishedAt, {
        status: 'succeeded',
        row_count: outcome.rowCount,
        bytes: outcome.bytes,
        sha256: outcome.sha256,
        expires_at: expiresAt.toISOString(),
        download_url: downloadPath(job.export_id),
      });
    },
    { serialiseOn: jobKey(job) },
  );
}

/**
 * Records a job's failure and its `export.completed` event (status failed, with
 * the public error) in one transaction, so a subscriber stops waiting for it.
 * Nothing is written when the attempt no longer owns the job.
 */
export async function failExportJob(
  state: StateDb,
  job: Pick<q.ClaimedExport, 'export_id' | 'attempt_id' | 'account_id' | 'format'>,
  error: string,
  at: Date,
): Promise<void> {
  await state.transaction(
    async (tx) => {
      if (!(await q.markFailed(tx, job, error, at))) return;
      await deleteMatches(tx, job.export_id);
      await insertCompleted(tx, job, at, {
        status: 'failed',
        row_count: null,
        bytes: null,
        sha256: null,
        expires_at: null,
        download_url: null,
        error,
      });
    },
    { serialiseOn: jobKey(job) },
  );
}

/** The `export.completed` event of a job, either outcome: the same envelope, the outcome's fields in the payload. */
async function insertCompleted(
  tx: StateQueryable,
  job: Pick<q.ClaimedExport, 'export_id' | 'account_id' | 'format'>,
  at: Date,
  { status, ...outcome }: { status: 'succeeded' | 'failed' } & Record<string, unknown>,
): Promise<void> {
  await q.insertEvent(tx, {
    event_id: newId('evt', at.getTime()),
    type: 'export.completed',
    account_id: job.account_id,
    created_at: at,
    payload: { export_id: job.export_id, status, format: job.format, ...outcome },
  });
}

interface JobReporter {
  report(percent: number): void;
  /** Renews the lease now; false once the job is no longer this attempt's. */
  renew(): Promise<boolean>;
  /** Stops the timed renewals and waits for every write already queued. */
  stop(): Promise<void>;
}

/** The key every write of one export job's row queues on (`transaction({ serialiseOn })`). */
const jobKey = (job: Pick<q.Attempt, 'export_id'>): string => `export:${job.export_id}`;

/**
 * Stores progress at most every 5 points and renews the lease every third of
 * its length, off the writing connection, never failing the export by itself.
 * Each write is a transaction serialised on the job's key, as are the job's
 * final transactions (`publish`, `failExportJob`): an update still in flight
 * when the final transaction writes the same row would make DuckDB abort that
 * transaction ("Conflict on update"). `stop()` ends the timed renewals and
 * waits for the last write queued.
 */
function jobReporter(state: StateDb, job: q.Attempt, now: () => Date, leaseMs: number): JobReporter {
  let last = 0;
  let latest: Promise<unknown> = Promise.resolve();
  let owned = true;
  const write = <T>(fn: (tx: StateQueryable) => Promise<T>): Promise<T> => {
    const next = state.transaction(fn, { serialiseOn: jobKey(job) });
    latest = next.catch(() => undefined);
    return next;
  };
  const renew = async (): Promise<boolean> => {
    if (owned) owned = await write((tx) => q.renewLease(tx, job, new Date(now().getTime() + leaseMs)));
    return owned;
  };
  const timer = setInterval(() => void renew().catch(() => undefined), Math.max(1, Math.floor(leaseMs / 3)));
  timer.unref();
  return {
    report(percent) {
      if (percent < last + 5) return;
      last = percent;
      void write((tx) => q.setProgress(tx, job, percent)).catch(() => undefined);
    },
    renew,
    stop: () => {
      clearInterval(timer);
      return latest.then(() => undefined);
    },
  };
}

/** Size and SHA-256 (hex) of a file, read through one reused 1 MiB buffer so hashing a large file allocates nothing more. */
export async function hashFile(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(1 << 20);
  const file = await open(path, 'r');
  let bytes = 0;
  try {
    for (;;) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, bytes);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      bytes += bytesRead;
    }
  } finally {
    await file.close();
  }
  return { bytes, sha256: hash.digest('hex') };
}
