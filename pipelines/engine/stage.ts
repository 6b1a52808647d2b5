import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, extname, join, resolve } from 'node:path';
import type { Queryable, SqlValue } from '../../data/store.js';
import type { EntitySpec } from '../entities/entity.js';
import { FileUnreadableError } from './errors.js';

/** File formats a source entity is accepted in (docs/data-formats.md). */
export type FileFormat = 'csv' | 'ndjson' | 'json' | 'parquet';

/** The compression suffixes DuckDB's readers decompress by (`creators.csv.gz`, `posts.ndjson.zst`). */
export const COMPRESSION_SUFFIX = /\.(?:gz|zst)$/i;

/** The file's compression suffix, lower-cased, or '' for an uncompressed file. */
export function compressionSuffix(path: string): string {
  return COMPRESSION_SUFFIX.exec(path)?.[0].toLowerCase() ?? '';
}

/** The format of a file, from its extension (`.csv.gz` reads as CSV). */
export function formatOf(path: string): FileFormat | null {
  const name = path.toLowerCase().replace(COMPRESSION_SUFFIX, '');
  const ext = extname(name);
  if (ext === '.csv') return 'csv';
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  if (ext === '.json') return 'json';
  if (ext === '.parquet' || ext === '.pq') return 'parquet';
  return null;
}

export interface StagedFile {
  /** Records read from the file: those in `stg_raw` and those the CSV reader rejected (`readerRejects`). */
  rows: number;
  /**
   * CSV records DuckDB's reader refused (listed in `READER_REJECTS`): more fields than the header
   * names, or an unterminated quote. They are quarantined, and the records after them keep their lines.
   */
  readerRejects: number;
  /** Added to a `stg_raw` rowid to give the file's line (CSV) or record number. */
  lineOffset: number;
  /** Columns the file has (extra CSV fields show up as `columnN`). */
  columns: readonly string[];
  /** DuckDB type of each staged column (VARCHAR for CSV and JSON; Parquet keeps its own). */
  types: Readonly<Record<string, string>>;
  /** Columns (or JSON keys) the entity does not have: read past, reported as a run warning. */
  ignored: readonly string[];
  /** Where the staged rows are read from: the temp table `stg_raw`, or a Parquet file where it lies. */
  relation: string;
  /** The bound parameters of `relation` (the file's path when it is read in place). */
  params: readonly SqlValue[];
  /** The column of `relation` that numbers its rows in file order (`rowid` of `stg_raw`). */
  rowId: string;
}

/** How a file is staged. */
export interface StageOptions {
  /**
   * Read a Parquet file where it lies instead of copying it into `stg_raw`, for a caller that reads
   * the staged rows only through `relation` (the load): the copy is a tenth of a 1M-row load's time,
   * and a Parquet file reads by row group at a fraction of a CSV's cost, so reading it again for the
   * rejected rows' raw values is cheaper than keeping a copy.
   */
  inPlace?: boolean;
}

const STAGING_TABLE: Pick<StagedFile, 'relation' | 'params' | 'rowId'> = {
  relation: 'stg_raw',
  params: [],
  rowId: 'rowid',
};

/**
 * Reads a file with DuckDB's own reader into the temp table `stg_raw`, every CSV
 * and JSON value as text so a bad value is a quarantined row, not a failed read.
 * CSV rows keep their order, so rowid + 2 is the line (header on line 1); short
 * rows are padded and long ones keep their extra fields, both caught by validation.
 * Columns the entity does not have are read past (`ignored`). A file that cannot be
 * read, or lacks a required column, throws `FileUnreadableError` and loads nothing.
 * The path is taken literally, never as a glob.
 */
export async function stageFile(
  tx: Queryable,
  path: string,
  format: FileFormat,
  spec: EntitySpec,
  options: StageOptions = {},
): Promise<StagedFile> {
  // A path with glob characters is read through a link that lives only while staging: it is copied.
  if (options.inPlace && format === 'parquet' && !GLOB_CHARS.test(path)) {
    const staged = await stageParquetInPlace(tx, path, spec);
    if (staged) return staged;
  }
  return withLiteralPath(path, (literal) => stageLiteral(tx, literal, format, spec));
}

/** The numbering column DuckDB's Parquet reader adds on request. */
const PARQUET_ROW_NUMBER = 'file_row_number';

/**
 * A Parquet file staged where it lies: its columns and row count from its footer, its rows read
 * by the typing pass (and again, for the rejected ones only, by the quarantine). Null for a file
 * with a column of the reader's numbering column's name (then it is copied like any other).
 */
async function stageParquetInPlace(tx: Queryable, path: string, spec: EntitySpec): Promise<StagedFile | null> {
  let described: Array<{ column_name: string; column_type: string }>;
  let rows: number;
  try {
    described = await tx.all('SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(?))', [path]);
    rows = Number((await tx.one<{ n: number }>('SELECT count(*) AS n FROM read_parquet(?)', [path]))?.n ?? 0);
  } catch (error) {
    throw new FileUnreadableError(`cannot read parquet file: ${firstLine(error)}`);
  }
  const columns = described.map((r) => r.column_name);
  if (columns.includes(PARQUET_ROW_NUMBER)) return null;
  const types = Object.fromEntries(described.map((r) => [r.column_name, r.column_type]));
  return {
    rows,
    readerRejects: 0,
    lineOffset: 1,
    columns,
    types,
    ignored: checkColumns(columns, spec, 'parquet'),
    relation: `read_parquet(?, ${PARQUET_ROW_NUMBER} = true)`,
    params: [path],
    rowId: PARQUET_ROW_NUMBER,
  };
}

async function stageLiteral(tx: Queryable, path: string, format: FileFormat, spec: EntitySpec): Promise<StagedFile> {
  try {
    await readIntoStaging(tx, path, format, spec);
  } catch (error) {
    throw new FileUnreadableError(`cannot read ${format} file: ${firstLine(error)}`);
  }
  const described = await tx.all<{ column_name: string; column_type: string }>(
    'SELECT column_name, column_type FROM (DESCRIBE temp.main.stg_raw)',
  );
  const columns = described.map((r) => r.column_name);
  const types = Object.fromEntries(described.map((r) => [r.column_name, r.column_type]));
  const ignored =
    format === 'ndjson' || format === 'json'
      ? await checkJsonKeys(tx, path, format, spec)
      : checkColumns(columns, spec, format);
  const rows = (await tx.one<{ n: number }>('SELECT count(*) AS n FROM stg_raw'))?.n ?? 0;
  const readerRejects =
    format === 'csv'
      ? Number(
          (await tx.one<{ n: number }>(`SELECT count(DISTINCT line) AS n FROM temp.main.${READER_REJECTS}`))?.n ?? 0,
        )
      : 0;
  return {
    rows: rows + readerRejects,
    readerRejects,
    lineOffset: format === 'csv' ? 2 : 1,
    columns,
    types,
    ignored,
    ...STAGING_TABLE,
  };
}

/** Characters DuckDB's readers expand as a glob in a path; they have no escape for them (a list of paths is globbed too). */
const GLOB_CHARS = /[*?[\]{}]/;

/**
 * Runs `read` with a path DuckDB takes literally. A name with glob characters
 * (`creators-*.csv`, `c[1].csv`) is read through a symbolic link with a plain
 * name, in a private temp folder, so it never reads the files it would match.
 * Error messages name the file the caller gave.
 */
async function withLiteralPath<T>(path: string, read: (literal: string) => Promise<T>): Promise<T> {
  if (!GLOB_CHARS.test(path)) return read(path);
  const dir = await mkdtemp(join(tmpdir(), 'cds-read-'));
  const link = join(dir, `file${compoundExtension(path)}`);
  try {
    if (GLOB_CHARS.test(link))
      throw new FileUnreadableError(`cannot read ${path}: the temp folder ${dir} has glob characters in its path`);
    await symlink(resolve(path), link);
    return await read(link);
  } catch (error) {
    if (error instanceof FileUnreadableError) throw new FileUnreadableError(error.message.split(link).join(path));
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `.csv`, `.csv.gz`: the extensions DuckDB reads the format and compression from, kept on the link. */
function compoundExtension(path: string): string {
  const match = /(\.[A-Za-z0-9]+)(\.(?:gz|zst))?$/i.exec(basename(path));
  return match ? match[0] : '';
}

/**
 * DuckDB refuses a CSV in its parallel reader when a quoted field spans lines
 * (a bio with a line break) and short rows are padded, which they must be so a
 * short row is a quarantined row: "The parallel scanner does not support
 * null_padding in conjunction with quoted new lines … parallel=false". Its
 * refusals name "the parallel scanner" or "the parallel CSV reader"; other
 * errors (a file it cannot sniff, a bad encoding) do not, and are not retried.
 */
const PARALLEL_REFUSAL = /parallel (?:scanner|csv reader)/i;

/**
 * Creates `stg_raw` from the file. A CSV is read with the parallel reader first,
 * so an ordinary file reads on every core; one the parallel reader refuses is
 * read again with the serial reader, which takes quoted line breaks anywhere.
 * Deciding up front would mean scanning the file for quoted line breaks in
 * JavaScript, or giving up the parallel read of every plain file. The parallel
 * reader takes many quoted line breaks itself; which ones it refuses depends on
 * what follows the break, so only its refusal can tell.
 * The refusal leaves the connection's transaction usable (DuckDB rolls back the
 * failed statement only), which test/integration/pipeline-large-csv.test.ts
 * checks for a several-file run staged inside its transaction.
 */
async function readIntoStaging(tx: Queryable, path: string, format: FileFormat, spec: EntitySpec): Promise<void> {
  const create = async (reader: string): Promise<void> => {
    await tx.run(`CREATE OR REPLACE TEMP TABLE stg_raw AS SELECT * FROM ${reader}`, [path]);
  };
  if (format !== 'csv') return create(readerSql(format, spec));
  const fresh = async (parallel: boolean): Promise<void> => {
    // the reader appends its rejects to these tables: each read starts them empty
    for (const t of [READER_REJECTS, READER_SCANS]) await tx.run(`DROP TABLE IF EXISTS temp.main.${t}`);
    await create(csvReaderSql(parallel));
  };
  try {
    await fresh(true);
  } catch (error) {
    if (!PARALLEL_REFUSAL.test(error instanceof Error ? error.message : String(error))) throw error;
    await fresh(false);
  }
}

/** The temp table of CSV records the reader rejected (DuckDB's `reject_errors` layout: line, error_type, csv_line, …). */
export const READER_REJECTS = 'stg_reader_rejects';
/** The scans those rejects belong to (DuckDB's `reject_scans`). */
export const READER_SCANS = 'stg_reader_scans';

/**
 * Every value as text; short rows padded; RFC 4180 quoting. Extra fields within DuckDB's sniffing
 * sample (the first 20,480 rows) make `columnN` columns, which validation rejects per row; a record
 * with more fields after the sample, or with an unterminated quote, is refused by the reader itself
 * (strict mode) and kept in `READER_REJECTS` instead of failing the file: it is quarantined too.
 * (Without strict mode the reader dropped such a record's extra fields and loaded the rest.)
 */
function csvReaderSql(parallel: boolean): string {
  return (
    `read_csv(?, all_varchar = true, header = true, null_padding = true, strict_mode = true, ignore_errors = true, ` +
    `store_rejects = true, rejects_table = '${READER_REJECTS}', rejects_scan = '${READER_SCANS}', ` +
    `delim = ',', quote = '"', escape = '"'${parallel ? '' : ', parallel = false'})`
  );
}

function readerSql(format: Exclude<FileFormat, 'csv'>, spec: EntitySpec): string {
  if (format === 'parquet') return 'read_parquet(?)';
  // Known keys are read as text; a missing key reads as NULL and is caught as a missing value.
  const columns = spec.columns.map((c) => `'${c.name}': 'VARCHAR'`).join(', ');
  return `read_json(?, format = '${format === 'ndjson' ? 'newline_delimited' : 'array'}', columns = {${columns}})`;
}

/**
 * A CSV or Parquet file must name every required column. Answers the columns it
 * names that the entity does not have: a column added upstream (a feed's new
 * field) should not stop the rest from loading, so they are read past and the
 * run says so. A misspelt required column still refuses the file, naming both.
 */
function checkColumns(columns: readonly string[], spec: EntitySpec, format: FileFormat): string[] {
  const known = new Set(spec.columns.map((c) => c.name));
  const named = format === 'csv' ? columns.filter((c) => !/^column\d+$/.test(c)) : columns;
  const unknown = named.filter((c) => !known.has(c));
  const missing = spec.columns.filter((c) => c.required && !columns.includes(c.name)).map((c) => c.name);
  if (missing.length > 0) {
    const parts = [
      `missing column(s) ${missing.join(', ')}`,
      unknown.length ? `unknown column(s) ${unknown.join(', ')}` : '',
    ];
    throw new FileUnreadableError(
      `wrong ${format === 'csv' ? 'header' : 'columns'} for ${spec.name}: ${parts.filter(Boolean).join('; ')}`,
    );
  }
  return unknown;
}

/** JSON records are objects; the keys seen in a sample must include the required ones. Answers the unknown keys. */
async function checkJsonKeys(tx: Queryable, path: string, format: FileFormat, spec: EntitySpec): Promise<string[]> {
  let keys: string[];
  try {
    keys = (
      await tx.all<{ column_name: string }>(
        `SELECT column_name FROM (DESCRIBE SELECT * FROM read_json(?, format = '${format === 'ndjson' ? 'newline_delimited' : 'array'}'))`,
        [path],
      )
    ).map((r) => r.column_name);
  } catch (error) {
    throw new FileUnreadableError(`cannot read ${format} file: ${firstLine(error)}`);
  }
  if (keys.length === 1 && keys[0] === 'json') return []; // an empty file or array: nothing to check
  return checkColumns(keys, spec, 'parquet');
}

export function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n')[0] ?? message).slice(0, 300);
}
