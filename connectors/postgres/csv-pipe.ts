import { execFileSync } from 'node:child_process';
import { closeSync, constants, createReadStream, openSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import type { Store } from '../../data/store.js';
import type { PushProgress, SyncBatch } from '../warehouse/destination.js';
import { sqlString } from '../warehouse/tables.js';
import { CopyFromStdin } from './copy-from.js';

/**
 * Streams a batch from DuckDB into a running `COPY … FROM STDIN`: DuckDB's CSV
 * writer writes into a named pipe that the COPY reads, so exporting and loading
 * overlap and no CSV lands on disk. Where no FIFO can be made, DuckDB writes a
 * CSV file first. Either way the COPY only counts if DuckDB finished too: a
 * half-written export fails the push (and its transaction) even when the COPY
 * saw a clean end of input.
 */
export async function copyBatch(
  store: Store, client: pg.Client, copySql: string, batch: SyncBatch, total: number, progress: PushProgress,
): Promise<number> {
  const path = join(batch.workDir, `${batch.table.name}.csv`);
  const exportSql = `COPY (${batch.query.sql}) TO ${sqlString(path)} (FORMAT csv, HEADER false)`;
  try {
    if (!makeFifo(path)) {
      await store.run(exportSql, batch.query.params);
      return await copyFrom(client, copySql, path, total, progress, statSync(path).size);
    }
    return await copyThroughPipe(store, client, copySql, exportSql, batch, path, total, progress);
  } finally {
    rmSync(path, { force: true });
  }
}

async function copyThroughPipe(
  store: Store, client: pg.Client, copySql: string, exportSql: string, batch: SyncBatch, path: string,
  total: number, progress: PushProgress,
): Promise<number> {
  const source = createReadStream(path, { highWaterMark: 1 << 20 });
  const copying = copyFromStream(client, copySql, source, total, progress)
    // Closing the read end makes DuckDB's next write fail (EPIPE) instead of blocking forever.
    .catch((error: unknown) => { source.destroy(); throw error; });
  const exporting = store.run(exportSql, batch.query.params)
    .catch((error: unknown) => { releaseReader(path); throw error; });
  const [copied, exported] = await Promise.allSettled([copying, exporting]);
  if (copied.status === 'rejected') throw copied.reason;
  if (exported.status === 'rejected') throw exported.reason;
  if (copied.value !== exported.value) {
    throw new Error(`COPY loaded ${copied.value} rows but DuckDB wrote ${exported.value}`);
  }
  return copied.value;
}

function copyFrom(client: pg.Client, sql: string, path: string, total: number, progress: PushProgress, size: number): Promise<number> {
  let sent = 0;
  const copy = new CopyFromStdin(sql, createReadStream(path, { highWaterMark: 1 << 20 }), (bytes) => {
    sent += bytes;
    return progress(size > 0 ? Math.round((total * sent) / size) : total, total);
  });
  client.query(copy);
  return copy.done;
}

/** Progress counted in lines seen (a quoted newline inside a field overcounts a little; capped at the total). */
function copyFromStream(client: pg.Client, sql: string, source: AsyncIterable<Buffer>, total: number, progress: PushProgress): Promise<number> {
  let lines = 0;
  const counted = (async function* () {
    for await (const chunk of source) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
      yield chunk;
    }
  })();
  const copy = new CopyFromStdin(sql, counted, () => progress(Math.min(lines, total), total));
  client.query(copy);
  return copy.done;
}

function makeFifo(path: string): boolean {
  try {
    execFileSync('mkfifo', ['-m', '600', path], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * When DuckDB fails before opening the pipe, the reader is still waiting in
 * open(); opening and closing the write end lets it see end-of-input. With no
 * reader left, the non-blocking open fails (ENXIO) and there is nothing to do.
 */
function releaseReader(path: string): void {
  try {
    closeSync(openSync(path, constants.O_WRONLY | constants.O_NONBLOCK));
  } catch {
    // nobody waiting
  }
}
