import { createReadStream, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { quoteIdent } from '../../data/sql.js';
import type { SqlValue, Store } from '../../data/store.js';
import type { PushProgress, SyncBatch } from '../warehouse/destination.js';
import { sqlString } from '../../data/sql.js';
import { CopyFromStdin } from './copy-from.js';
import { pgCsvSelect } from './postgres.queries.js';

/** At most this many parts: each costs DuckDB one more filtered scan. */
const MAX_PARTS = 16;

interface Part {
  path: string;
  sql: string;
  params: SqlValue[];
}

/**
 * Streams a batch into a running `COPY … FROM STDIN` as CSV parts written by
 * DuckDB: the batch is cut into ranges of its first key column, DuckDB writes
 * the parts one after another in the background while the COPY sends each
 * finished one, so exporting overlaps loading. A failed export fails the COPY
 * (CopyFail), and with it the push and its transaction.
 */
export async function copyBatch(
  store: Store,
  client: pg.Client,
  copySql: string,
  batch: SyncBatch,
  total: number,
  partRows: number,
  progress: PushProgress,
): Promise<number> {
  const parts = await planParts(store, batch, total, partRows);
  const exported: Array<Promise<number>> = [];
  let chain: Promise<unknown> = Promise.resolve();
  for (const part of parts) {
    const select = pgCsvSelect(batch.columns, part.sql);
    const run = chain.then(() =>
      store.run(`COPY (${select}) TO ${sqlString(part.path)} (FORMAT csv, HEADER false)`, part.params),
    );
    run.catch(() => undefined);
    exported.push(run);
    chain = run;
  }
  let before = 0;
  let rowsInPart = 0;
  let partSize = 0;
  let sent = 0;
  const source = async function* (): AsyncGenerator<Buffer> {
    for (const [i, part] of parts.entries()) {
      rowsInPart = await (exported[i] ?? Promise.resolve(0));
      partSize = statSync(part.path).size;
      sent = 0;
      for await (const chunk of createReadStream(part.path, { highWaterMark: 1 << 20 })) yield chunk as Buffer;
      rmSync(part.path, { force: true });
      before += rowsInPart;
    }
  };
  const copy = new CopyFromStdin(copySql, source(), (bytes) => {
    sent += bytes;
    const done = before + (partSize > 0 ? Math.round((rowsInPart * sent) / partSize) : rowsInPart);
    return progress(Math.min(done, total), total);
  });
  client.query(copy);
  try {
    return await copy.done;
  } finally {
    // Parts still being written when the COPY failed finish before their files go.
    await Promise.allSettled(exported);
    for (const part of parts) rmSync(part.path, { force: true });
  }
}

/** One part for a small batch or a non-integer key; else even ranges of the first key column. */
async function planParts(store: Store, batch: SyncBatch, total: number, partRows: number): Promise<Part[]> {
  const dir = batch.workDir;
  const whole = [{ path: join(dir, 'part-0.csv'), sql: batch.query.sql, params: [...batch.query.params] }];
  const key = batch.table.key[0];
  const type = batch.columns.find((c) => c.name === key)?.type;
  if (!key || total <= partRows || !type || !/^(TINYINT|SMALLINT|INTEGER|BIGINT)$/.test(type)) return whole;
  const k = quoteIdent(key);
  const span = await store.one<{ lo: number; hi: number }>(
    `SELECT min(${k}) AS lo, max(${k}) AS hi FROM (${batch.query.sql})`,
    batch.query.params,
  );
  if (!span) return whole;
  const count = Math.min(MAX_PARTS, Math.ceil(total / partRows));
  const step = Math.ceil((span.hi - span.lo + 1) / count);
  return Array.from({ length: count }, (_, i) => ({
    path: join(dir, `part-${i}.csv`),
    sql: `SELECT * FROM (${batch.query.sql}) b WHERE b.${k} >= ? AND b.${k} < ?`,
    params: [...batch.query.params, span.lo + i * step, span.lo + (i + 1) * step],
  }));
}
