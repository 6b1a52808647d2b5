import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Config } from '../../config/config.js';
import { newId } from '../../data/ids.js';
import type { Store } from '../../data/store.js';
import type { ExportFormat, ExportSource } from './export.config.js';
import { resolveFields } from './export-fields.js';
import { exportFilePath, exportTempPath } from './export-files.js';
import { downloadPath } from './export-job.js';
import * as q from './export-job.queries.js';
import { exportQuerySql } from './export-source.js';
import { writeExportFile } from './export.writer.js';

export interface ExportEngineDeps {
  store: Store;
  config: Pick<Config, 'exportsDir' | 'exportTtlHours'>;
  now?: () => Date;
  /** Also told of progress (the CLI shows it on a TTY). */
  onProgress?: (percent: number) => void;
}

/** What a finished export wrote. */
export interface ExportOutcome {
  rowCount: number;
  bytes: number;
  sha256: string;
  fileName: string;
}

/**
 * Writes one (running) export job's file and publishes it. The file is written
 * to `<id>.<ext>.part`, hashed, then renamed into place, so a crash never leaves
 * a half file under the real name; the job's success and its `export.completed`
 * event are committed in one transaction.
 */
export async function runExportJob(deps: ExportEngineDeps, job: q.ExportRow): Promise<ExportOutcome> {
  const now = deps.now ?? (() => new Date());
  const format = job.format as ExportFormat;
  const source = JSON.parse(job.source) as ExportSource;
  const fields = resolveFields(source.type, job.fields ?? undefined);
  const query = exportQuerySql(source, job.account_id, fields, format);
  mkdirSync(deps.config.exportsDir, { recursive: true });
  const temp = exportTempPath(deps.config.exportsDir, job.export_id, format);
  const final = exportFilePath(deps.config.exportsDir, job.export_id, format);
  rmSync(temp, { force: true });
  const stored = progressReporter(deps.store, job.export_id);
  const progress = (percent: number): void => {
    stored.report(percent);
    deps.onProgress?.(percent);
  };
  try {
    const rowCount = await deps.store.withConnection((c) =>
      writeExportFile(c, query, format, fields, temp, { expectedRows: job.row_count ?? 0, onProgress: progress }));
    const { bytes, sha256 } = await hashFile(temp);
    renameSync(temp, final);
    const outcome = { rowCount, bytes, sha256, fileName: basename(final) };
    await stored.settled();
    await publish(deps.store, job, outcome, now(), deps.config.exportTtlHours);
    return outcome;
  } catch (error) {
    await stored.settled();
    rmSync(temp, { force: true });
    rmSync(final, { force: true });
    throw error;
  }
}

async function publish(store: Store, job: q.ExportRow, outcome: ExportOutcome, finishedAt: Date, ttlHours: number): Promise<void> {
  const expiresAt = new Date(finishedAt.getTime() + ttlHours * 3_600_000);
  await store.transaction(async (tx) => {
    await q.markSucceeded(tx, job.export_id, {
      row_count: outcome.rowCount, bytes: outcome.bytes, sha256: outcome.sha256, file_name: outcome.fileName,
      finished_at: finishedAt, expires_at: expiresAt,
    });
    await q.insertEvent(tx, {
      event_id: newId('evt', finishedAt.getTime()), type: 'export.completed', account_id: job.account_id, created_at: finishedAt,
      payload: {
        export_id: job.export_id, status: 'succeeded', format: job.format, row_count: outcome.rowCount, bytes: outcome.bytes,
        sha256: outcome.sha256, expires_at: expiresAt.toISOString(), download_url: downloadPath(job.export_id),
      },
    });
  });
}

/**
 * Records a job's failure and its `export.completed` event (status failed, with
 * the public error) in one transaction, so a subscriber stops waiting for it.
 */
export async function failExportJob(store: Store, job: Pick<q.ExportRow, 'export_id' | 'account_id' | 'format'>, error: string, at: Date): Promise<void> {
  await store.transaction(async (tx) => {
    await q.markFailed(tx, job.export_id, error, at);
    await q.insertEvent(tx, {
      event_id: newId('evt', at.getTime()), type: 'export.completed', account_id: job.account_id, created_at: at,
      payload: {
        export_id: job.export_id, status: 'failed', format: job.format, row_count: null, bytes: null, sha256: null,
        expires_at: null, download_url: null, error,
      },
    });
  });
}

/**
 * Stores progress at most every 5 points, off the writing connection, never
 * failing the export. Updates run one after another, and `settled()` waits for
 * the last: an update still in flight when the job's final transaction writes
 * the same row would make DuckDB abort that transaction ("Conflict on update").
 */
function progressReporter(store: Store, exportId: string): { report: (percent: number) => void; settled: () => Promise<void> } {
  let last = 0;
  let chain: Promise<void> = Promise.resolve();
  return {
    report(percent) {
      if (percent < last + 5) return;
      last = percent;
      chain = chain.then(() => q.setProgress(store, exportId, percent)).catch(() => undefined);
    },
    settled: () => chain,
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
