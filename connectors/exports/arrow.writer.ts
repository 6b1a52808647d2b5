import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DuckDBConnection, DuckDBDataChunk, DuckDBValue } from '@duckdb/node-api';
import {
  Bool, DateDay, Field, Float64, Int64, RecordBatch, RecordBatchStreamWriter, Schema, Struct, TimestampMicrosecond, Utf8,
  makeData, vectorFromArray, type Data, type DataType,
} from 'apache-arrow';
import type { ExportField, FieldKind } from './export-fields.js';
import type { BoundSql } from './export-source.js';
import { runStreaming } from './duckdb-stream.js';

/** Arrow type of each field kind; the projection (export-fields.ts) already shaped the values to fit. */
function arrowType(kind: FieldKind): DataType {
  switch (kind) {
    case 'text': return new Utf8();
    case 'int': return new Int64();
    case 'float': return new Float64();
    case 'bool': return new Bool();
    case 'timestamp': return new TimestampMicrosecond('UTC');
    case 'date': return new DateDay();
  }
}

/** The file's schema: one nullable column per field, in order. */
export function arrowSchema(fields: readonly ExportField[]): Schema {
  return new Schema(fields.map((f) => new Field(f.name, arrowType(f.kind), true)));
}

/**
 * Writes the query's rows as an Arrow IPC stream. Each DuckDB result chunk
 * (2,048 rows) becomes one RecordBatch, built column-wise into typed arrays and
 * written out before the next chunk is fetched, so memory stays flat whatever
 * the row count. Answers the number of rows written.
 */
export async function writeArrowStream(
  connection: DuckDBConnection, query: BoundSql, fields: readonly ExportField[], path: string,
  onRows: (rows: number) => void,
): Promise<number> {
  const schema = arrowSchema(fields);
  const writer = new RecordBatchStreamWriter();
  const out = createWriteStream(path);
  const done = pipeline(Readable.from(writer), out);
  writer.reset(undefined, schema);
  let rows = 0;
  try {
    await runStreaming(connection, query, async (chunk) => {
      writer.write(toRecordBatch(schema, fields, chunk));
      rows += chunk.rowCount;
      onRows(rows);
      if (out.writableNeedDrain) await once(out, 'drain');
    });
  } finally {
    writer.close();
    await done;
  }
  return rows;
}

function toRecordBatch(schema: Schema, fields: readonly ExportField[], chunk: DuckDBDataChunk): RecordBatch {
  const length = chunk.rowCount;
  const children = fields.map((f, i) => columnData(f.kind, chunk.getColumnValues(i), length));
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children }));
}

function columnData(kind: FieldKind, values: DuckDBValue[], length: number): Data {
  switch (kind) {
    case 'text': return vectorFromArray(values as (string | null)[], new Utf8()).data[0] as Data;
    case 'bool': return vectorFromArray(values as (boolean | null)[], new Bool()).data[0] as Data;
    case 'float': return fixedWidth(new Float64(), new Float64Array(length), values, (v) => Number(v));
    case 'date': return fixedWidth(new DateDay(), new Int32Array(length), values, (v) => Number(v));
    case 'int': return fixedWidth(new Int64(), new BigInt64Array(length), values, (v) => BigInt(v as number | bigint));
    case 'timestamp': return fixedWidth(new TimestampMicrosecond('UTC'), new BigInt64Array(length), values, (v) => BigInt(v as number | bigint));
  }
}

/** A fixed-width column from values, with a validity bitmap only when there are nulls. */
function fixedWidth<T extends DataType, A extends { [i: number]: number | bigint; length: number }>(
  type: T, data: A, values: readonly DuckDBValue[], convert: (v: DuckDBValue) => A[number],
): Data {
  let nullCount = 0;
  let bitmap: Uint8Array | undefined;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      bitmap ??= validAll(values.length);
      bitmap[i >> 3] = (bitmap[i >> 3] ?? 0) & ~(1 << (i & 7));
      nullCount++;
    } else {
      data[i] = convert(v);
    }
  }
  return makeData({ type, length: values.length, nullCount, nullBitmap: bitmap, data } as never) as Data;
}

function validAll(length: number): Uint8Array {
  return new Uint8Array((length + 7) >> 3).fill(0xff);
}
