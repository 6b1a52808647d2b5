import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  LIST,
  VARCHAR,
  listValue,
  type DuckDBConnection,
  type DuckDBDataChunk,
  type DuckDBType,
  type DuckDBValue,
} from '@duckdb/node-api';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { SqlValue } from '../../data/store.js';
import type { BoundSql } from './export-source.js';

/**
 * Streams a query's result chunk by chunk into `onChunk`, awaiting it before the
 * next fetch, so at most one chunk (2,048 rows) is held in JavaScript at a time.
 *
 * A fetched chunk's memory is DuckDB's, freed only when the garbage collector
 * finalises its JavaScript handle, and V8 cannot see that memory: a reader that
 * makes little garbage of its own would let hundreds of spent chunks pile up
 * (a 1M-row export held 400 MB of them). So every `COLLECT_EVERY` chunks the
 * stream asks for a collection, which bounds them to that many.
 */
export async function runStreaming(
  connection: DuckDBConnection,
  query: BoundSql,
  onChunk: (chunk: DuckDBDataChunk) => Promise<void>,
): Promise<void> {
  const result = await connection.stream(query.sql, query.params.map(toValue), query.params.map(toType));
  for (let fetched = 1; ; fetched++) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) return;
    await onChunk(chunk);
    if (fetched % COLLECT_EVERY === 0) collectGarbage();
  }
}

/**
 * Chunks between collections: 8 x 2,048 rows. One 1M-row Arrow export each: every 16 peaked at 293 MB,
 * every 8 at 291 MB, every 4 at 280 MB but took 1.8x as long; none at all peaked at 301-310 MB.
 */
const COLLECT_EVERY = 8;

let gc: (() => void) | undefined;

/** A full garbage collection (V8's `gc`, exposed on first use: the process need not start with --expose-gc). */
function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/** Same binding rules as the store (data/store.ts): arrays become lists, integers BIGINT. */
function toValue(v: SqlValue): DuckDBValue {
  if (Array.isArray(v)) return listValue([...(v as ReadonlyArray<string | number>)]);
  return v as DuckDBValue;
}

function toType(v: SqlValue): DuckDBType {
  if (typeof v === 'string') return VARCHAR;
  if (typeof v === 'boolean') return BOOLEAN;
  if (typeof v === 'bigint') return BIGINT;
  if (typeof v === 'number') return Number.isInteger(v) ? BIGINT : DOUBLE;
  if (Array.isArray(v)) return LIST(v.length > 0 && typeof v[0] === 'number' ? DOUBLE : VARCHAR);
  return VARCHAR;
}
