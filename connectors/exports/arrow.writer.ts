import { open } from 'node:fs/promises';
import type { DuckDBConnection, DuckDBDataChunk, DuckDBValue } from '@duckdb/node-api';
import type { DuckDBListValue } from '@duckdb/node-api';
import {
  Bool,
  DateDay,
  Field,
  Float64,
  Int64,
  List,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  TimestampMicrosecond,
  Utf8,
  makeData,
  vectorFromArray,
  type Data,
  type DataType,
} from 'apache-arrow';
import type { ExportField, FieldKind } from './export-fields.js';
import type { BoundSql } from './export-source.js';
import { runStreaming } from './duckdb-stream.js';

/** Arrow type of each field kind; the projection (export-fields.ts) already shaped the values to fit. */
function arrowType(kind: FieldKind): DataType {
  switch (kind) {
    case 'text':
      return new Utf8();
    case 'int':
      return new Int64();
    case 'float':
      return new Float64();
    case 'bool':
      return new Bool();
    case 'timestamp':
      return new TimestampMicrosecond('UTC');
    case 'date':
      return new DateDay();
    case 'text_list':
      return textList();
  }
}

/** List<Utf8> with nullable items, the child named `item` as Arrow's own writers name it. */
function textList(): List<Utf8> {
  return new List(new Field('item', new Utf8(), true));
}

/** The file's schema: one nullable column per field, in order. */
export function arrowSchema(fields: readonly ExportField[]): Schema {
  return new Schema(fields.map((f) => new Field(f.name, arrowType(f.kind), true)));
}

/**
 * Writes the query's rows as an Arrow IPC stream. Each DuckDB result chunk
 * (2,048 rows) becomes one RecordBatch, built column-wise into typed arrays,
 * serialised and written (awaited) before the next chunk is fetched, so at most
 * one batch is in memory whatever the row count. Answers the rows written.
 */
export async function writeArrowStream(
  connection: DuckDBConnection,
  query: BoundSql,
  fields: readonly ExportField[],
  path: string,
  onRows: (rows: number) => void,
): Promise<number> {
  const schema = arrowSchema(fields);
  const framing = streamFraming(schema);
  const file = await open(path, 'w');
  let rows = 0;
  try {
    await file.write(framing.header);
    await runStreaming(connection, query, async (chunk) => {
      await file.write(framing.body(toRecordBatch(schema, fields, chunk)));
      rows += chunk.rowCount;
      onRows(rows);
    });
    await file.write(framing.end);
  } finally {
    await file.close();
  }
  return rows;
}

/**
 * The IPC stream format is: schema message, record batch messages, end-of-stream
 * marker. apache-arrow's writer only hands bytes out through an unbounded async
 * queue (no backpressure), so each batch is serialised on its own as a one-batch
 * stream and its batch message cut out between the (identical) schema message
 * and the 8-byte end marker.
 */
function streamFraming(schema: Schema): {
  header: Uint8Array;
  end: Uint8Array;
  body: (batch: RecordBatch) => Uint8Array;
} {
  const empty = new RecordBatchStreamWriter();
  empty.reset(undefined, schema);
  empty.close();
  const whole = empty.toUint8Array(true);
  const header = whole.subarray(0, whole.length - EOS_BYTES);
  const end = whole.subarray(whole.length - EOS_BYTES);
  return {
    header,
    end,
    body: (batch) => {
      const bytes = RecordBatchStreamWriter.writeAll([batch]).toUint8Array(true);
      if (!Buffer.from(bytes.subarray(0, header.length)).equals(Buffer.from(header)))
        throw new Error('arrow framing: schema message differs');
      return bytes.subarray(header.length, bytes.length - EOS_BYTES);
    },
  };
}

/** Continuation marker 0xFFFFFFFF and a zero length (Arrow columnar format, "End of stream"). */
const EOS_BYTES = 8;

function toRecordBatch(schema: Schema, fields: readonly ExportField[], chunk: DuckDBDataChunk): RecordBatch {
  const length = chunk.rowCount;
  const children = fields.map((f, i) => columnData(f.kind, chunk.getColumnValues(i), length));
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length, nullCount: 0, children }));
}

function columnData(kind: FieldKind, values: DuckDBValue[], length: number): Data {
  switch (kind) {
    case 'text':
      return utf8Column(values as readonly (string | null)[]);
    case 'bool':
      return vectorFromArray(values as (boolean | null)[], new Bool()).data[0] as Data;
    case 'float':
      return fixedWidth(new Float64(), new Float64Array(length), values, (v) => Number(v));
    case 'date':
      return fixedWidth(new DateDay(), new Int32Array(length), values, (v) => Number(v));
    case 'int':
      return fixedWidth(new Int64(), new BigInt64Array(length), values, (v) => BigInt(v as number | bigint));
    case 'timestamp':
      return fixedWidth(new TimestampMicrosecond('UTC'), new BigInt64Array(length), values, (v) =>
        BigInt(v as number | bigint),
      );
    case 'text_list':
      return textListColumn(values as ReadonlyArray<DuckDBListValue | null>);
  }
}

/** A List<Utf8> column: one offsets array over the items of every row, the items one Utf8 child. */
function textListColumn(values: ReadonlyArray<DuckDBListValue | null>): Data {
  const length = values.length;
  const valueOffsets = new Int32Array(length + 1);
  const items: Array<string | null> = [];
  const nulls = new NullMask(length);
  for (let i = 0; i < length; i++) {
    valueOffsets[i] = items.length;
    const v = values[i];
    if (v === null || v === undefined) {
      nulls.set(i);
    } else {
      for (const item of v.items) items.push(item === null ? null : String(item));
    }
  }
  valueOffsets[length] = items.length;
  return makeData({
    type: textList(),
    length,
    nullCount: nulls.count,
    nullBitmap: nulls.bitmap,
    valueOffsets,
    child: utf8Column(items) as Data<Utf8>,
  }) as Data;
}

/**
 * A Utf8 column written straight into its offsets and one byte buffer: apache-arrow's
 * `vectorFromArray` builds it through growing builders, several times the garbage
 * (and the collector's work, see duckdb-stream.ts) for the same bytes.
 */
function utf8Column(values: readonly (string | null)[]): Data {
  const length = values.length;
  let total = 0;
  for (const v of values) if (v !== null) total += Buffer.byteLength(v, 'utf8');
  const data = Buffer.allocUnsafe(total);
  const valueOffsets = new Int32Array(length + 1);
  const nulls = new NullMask(length);
  let at = 0;
  for (let i = 0; i < length; i++) {
    valueOffsets[i] = at;
    const v = values[i];
    if (v === null || v === undefined) {
      nulls.set(i);
    } else {
      at += data.write(v, at, 'utf8');
    }
  }
  valueOffsets[length] = at;
  return makeData({
    type: new Utf8(),
    length,
    nullCount: nulls.count,
    nullBitmap: nulls.bitmap,
    valueOffsets,
    data,
  }) as Data;
}

/** A fixed-width column from values, with a validity bitmap only when there are nulls. */
function fixedWidth<T extends DataType, A extends { [i: number]: number | bigint; length: number }>(
  type: T,
  data: A,
  values: readonly DuckDBValue[],
  convert: (v: DuckDBValue) => A[number],
): Data {
  const nulls = new NullMask(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v === null || v === undefined) {
      nulls.set(i);
    } else {
      data[i] = convert(v);
    }
  }
  return makeData({
    type,
    length: values.length,
    nullCount: nulls.count,
    nullBitmap: nulls.bitmap,
    data,
  } as never) as Data;
}

/** A column's nulls: the validity bitmap, made at the first null (a column without nulls has none), and their count. */
class NullMask {
  bitmap: Uint8Array | undefined;
  count = 0;
  constructor(private readonly length: number) {}

  set(i: number): void {
    this.bitmap ??= new Uint8Array((this.length + 7) >> 3).fill(0xff);
    this.bitmap[i >> 3] = (this.bitmap[i >> 3] ?? 0) & ~(1 << (i & 7));
    this.count++;
  }
}
