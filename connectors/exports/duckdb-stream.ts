import { BIGINT, BOOLEAN, DOUBLE, LIST, VARCHAR, listValue, type DuckDBConnection, type DuckDBDataChunk, type DuckDBType, type DuckDBValue } from '@duckdb/node-api';
import type { SqlValue } from '../../data/store.js';
import type { BoundSql } from './export-source.js';

/**
 * Streams a query's result chunk by chunk into `onChunk`, awaiting it before the
 * next fetch, so at most one chunk (2,048 rows) is held in JavaScript at a time.
 */
export async function runStreaming(
  connection: DuckDBConnection, query: BoundSql, onChunk: (chunk: DuckDBDataChunk) => Promise<void>,
): Promise<void> {
  const result = await connection.stream(query.sql, query.params.map(toValue), query.params.map(toType));
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) return;
    await onChunk(chunk);
  }
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
