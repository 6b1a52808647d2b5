import type { DuckDBConnection } from '@duckdb/node-api';
import { sqlString } from '../../data/sql.js';
import { wrap } from '../../data/store.js';
import { writeArrowStream } from './arrow.writer.js';
import type { ExportFormat } from './export.config.js';
import type { ExportField } from './export-fields.js';
import type { BoundSql } from './export-source.js';

/** COPY options per format: DuckDB's own writers, streaming and memory-flat. */
const COPY_OPTIONS: Readonly<Record<Exclude<ExportFormat, 'arrow'>, string>> = {
  json: 'FORMAT json, ARRAY true',
  ndjson: 'FORMAT json',
  // RFC 4180: header row, comma, double-quote quoting, CRLF line ends.
  csv: `FORMAT csv, HEADER true, DELIMITER ',', QUOTE '"', ESCAPE '"', NEW_LINE '\r\n'`,
  // Snappy and plain encoding so every Parquet reader decodes the file: parquetjs-lite (the usual JavaScript
  // reader) has no zstd and turns dictionary-encoded INT64/TIMESTAMP values into strings it then fails on.
  parquet: 'FORMAT parquet, COMPRESSION snappy, DICTIONARY_SIZE_LIMIT 0',
};

/** The COPY statement that writes `query` to `path` in a DuckDB-native format. */
export function copyStatement(query: BoundSql, format: Exclude<ExportFormat, 'arrow'>, path: string): BoundSql {
  return { sql: `COPY (${query.sql}) TO ${sqlString(path)} (${COPY_OPTIONS[format]})`, params: query.params };
}

/**
 * Writes the export file at `path` and answers its row count. JSON, NDJSON, CSV
 * and Parquet go through DuckDB's COPY, which reports no progress through the
 * Node client, so progress moves in stages (10 at the start, 90 once written);
 * Arrow streams result chunks into RecordBatches and counts rows as it goes.
 */
export async function writeExportFile(
  connection: DuckDBConnection,
  query: BoundSql,
  format: ExportFormat,
  fields: readonly ExportField[],
  path: string,
  options: { expectedRows: number; onProgress: (percent: number) => void },
): Promise<number> {
  if (format === 'arrow') {
    const total = Math.max(1, options.expectedRows);
    return writeArrowStream(connection, query, fields, path, (rows) =>
      options.onProgress(Math.min(90, Math.floor((rows / total) * 90))),
    );
  }
  options.onProgress(10);
  const copy = copyStatement(query, format, path);
  const rows = await wrap(connection).run(copy.sql, copy.params);
  options.onProgress(90);
  return rows;
}
