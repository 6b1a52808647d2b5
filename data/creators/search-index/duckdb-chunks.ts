import type { DuckDBConnection, DuckDBDataChunk } from '@duckdb/node-api';

/**
 * Streams a query's result chunk by chunk (typed vectors, no row objects): how
 * the search index reads millions of values without a JS object per row. Read
 * `chunk.rowCount` once per chunk — it is a native call.
 */
export async function eachChunk(c: DuckDBConnection, sql: string, fn: (chunk: DuckDBDataChunk) => void): Promise<void> {
  const result = await c.stream(sql);
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) return;
    fn(chunk);
  }
}
