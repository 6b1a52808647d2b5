import type { DuckDBConnection, DuckDBDataChunk, DuckDBVector } from '@duckdb/node-api';

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

/**
 * `eachChunk` for a query read column by column: `fn` gets each chunk's row
 * count and its column vectors in the SELECT's order, each read once per chunk.
 */
export async function eachChunkColumns(
  c: DuckDBConnection,
  sql: string,
  fn: (rows: number, ...columns: DuckDBVector[]) => void,
): Promise<void> {
  await eachChunk(c, sql, (chunk) => {
    const columns = Array.from({ length: chunk.columnCount }, (_, i) => chunk.getColumnVector(i));
    fn(chunk.rowCount, ...columns);
  });
}
