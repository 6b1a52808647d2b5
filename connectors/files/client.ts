import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { wrap, type Store } from '../../data/store.js';
import { hashFile } from '../exports/index.js';
import type { PushProgress, PushResult, SyncBatch } from '../warehouse/destination.js';
import { TerminalError } from '../warehouse/errors.js';
import { quoteIdent, sqlString } from '../../data/sql.js';
import { partitionDateSql, type SyncColumn } from '../warehouse/tables.js';
import type { FileFormat, FilesDestinationConfig } from './config.js';
import { readManifest, writeManifest, type ManifestFile, type ManifestTable } from './manifest.js';

const EXTENSIONS: Readonly<Record<FileFormat, string>> = { parquet: 'parquet', csv: 'csv', ndjson: 'ndjson' };

/**
 * DuckDB COPY options per format; Snappy Parquet is what every warehouse loader
 * and reader takes. DuckDB's JSON writer cannot partition, so NDJSON is staged
 * as Parquet and each staged file converted.
 */
const COPY_OPTIONS: Readonly<Record<FileFormat, string>> = {
  parquet: 'FORMAT parquet, COMPRESSION snappy',
  csv: "FORMAT csv, HEADER true, FILE_EXTENSION 'csv'",
  ndjson: 'FORMAT parquet, COMPRESSION uncompressed',
};

/** The folder exists (or can be made) and takes a file. */
export async function testFiles(config: FilesDestinationConfig): Promise<void> {
  const root = resolve(config.path);
  mkdirSync(root, { recursive: true });
  const probe = join(root, `.cds-probe-${process.pid}`);
  mkdirSync(probe, { recursive: true });
  rmSync(probe, { recursive: true, force: true });
}

/**
 * Pushes one batch as `table/dt=YYYY-MM-DD/part-N.<ext>`: DuckDB writes the
 * partitions into a hidden staging folder beside the data, the files are moved
 * into place under the next free part numbers, and `_manifest.json` is written
 * after them. Files a batch supersedes (the re-sent day of a DATE cursor, or
 * a whole table sent again) are removed only once the new manifest is in place.
 */
export async function pushFiles(
  config: FilesDestinationConfig,
  store: Store,
  batch: SyncBatch,
  progress: PushProgress,
): Promise<PushResult> {
  const root = resolve(config.path);
  const staging = join(root, `.staging-${batch.runId}-${batch.table.name}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  try {
    const rows = await writeStaging(store, batch, config.format, staging);
    await publish(store, root, staging, batch, config.format, rows);
    await progress(rows, rows);
    return { rowsRead: rows, rowsLoaded: rows, rowsChanged: rows };
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Partition files a batch may hold open at once: more than the days a batch spans (a year and a bit). */
const MAX_OPEN_PARTITION_FILES = 1000;

/** DuckDB writes the batch, partitioned by day, into the staging folder; answers the rows written. */
async function writeStaging(store: Store, batch: SyncBatch, format: FileFormat, staging: string): Promise<number> {
  const dt = partitionDateSql(batch.table, batch.runDate);
  const rows = await store.withConnection(async (c) => {
    const q = wrap(c);
    // DuckDB keeps 100 partition files open by default and starts a new file whenever it reopens one: a year of
    // daily history became a few dozen small files per day. With every day's file kept open, each day is one file.
    await q.run(`SET partitioned_write_max_open_files = ${MAX_OPEN_PARTITION_FILES}`);
    try {
      return await q.run(
        `COPY (SELECT ${rowSelect(batch.columns, format)}, ${dt} AS dt FROM (${batch.query.sql}) b) TO ${sqlString(staging)} ` +
          `(${COPY_OPTIONS[format]}, PARTITION_BY (dt), FILENAME_PATTERN 'part-{i}', OVERWRITE_OR_IGNORE)`,
        batch.query.params,
      );
    } finally {
      await q.run('RESET partitioned_write_max_open_files');
    }
  });
  if (format === 'ndjson') await stagedParquetToNdjson(store, staging);
  return rows;
}

/**
 * The batch's columns as written: Parquet and NDJSON hold lists natively; in a
 * CSV cell a list is its JSON array text (`["a","b"]`), DuckDB's own `[a, b]`
 * being ambiguous once an item holds a comma.
 */
function rowSelect(columns: readonly SyncColumn[], format: FileFormat): string {
  const lists = format === 'csv' ? columns.filter((c) => c.type.endsWith('[]')) : [];
  if (lists.length === 0) return 'b.*';
  return `b.* REPLACE (${lists.map((c) => `to_json(b.${quoteIdent(c.name)})::VARCHAR AS ${quoteIdent(c.name)}`).join(', ')})`;
}

/** Moves the staged files into place, then replaces the manifest, then removes what they supersede. */
async function publish(
  store: Store,
  root: string,
  staging: string,
  batch: SyncBatch,
  format: FileFormat,
  rows: number,
): Promise<void> {
  const table = batch.table.name;
  const manifest = readManifest(root);
  const previous = manifest.tables[table];
  const gained = schemaChange(previous, batch, format);
  const version = (previous?.schema_version ?? 1) + (gained.length > 0 ? 1 : 0);
  removeOrphans(root, table, previous?.files ?? []);
  const superseded = supersededFiles(previous, batch);
  const added = rows > 0 ? await placeFiles(store, root, staging, batch, format, version) : [];
  const kept = (previous?.files ?? []).filter((f) => !superseded.includes(f));
  manifest.tables[table] = tableEntry(previous, batch, format, [...kept, ...added], { version, gained });
  manifest.updated_at = new Date().toISOString();
  writeManifest(root, manifest);
  for (const f of superseded) rmSync(join(root, f.path), { force: true });
}

/** Files this batch replaces: all of a table sent whole, or the re-sent first day of a DATE cursor. */
function supersededFiles(previous: ManifestTable | undefined, batch: SyncBatch): ManifestFile[] {
  if (!previous) return [];
  const cursor = batch.table.cursor;
  if (!cursor) return previous.files;
  const from = batch.watermark.from;
  if (!cursor.inclusive || from === null) return [];
  const day = from.slice(0, 10);
  return previous.files.filter((f) => f.dt === day);
}

/**
 * Data files of the table that no manifest names: left by a run cut off
 * between placing its files and writing the manifest. They go, so a reader
 * globbing the folder sees what the manifest says.
 */
function removeOrphans(root: string, table: string, listed: readonly ManifestFile[]): void {
  const dir = join(root, table);
  if (!existsSync(dir)) return;
  const known = new Set(listed.map((f) => f.path));
  for (const part of readdirSync(dir).filter((d) => d.startsWith('dt='))) {
    for (const name of readdirSync(join(dir, part)).filter((n) => /^part-\d+\./.test(n))) {
      if (!known.has(`${table}/${part}/${name}`)) rmSync(join(dir, part, name), { force: true });
    }
  }
}

/**
 * The columns a table gained since the manifest's schema. Additive change is
 * accepted: every column the folder has keeps its name and type, new ones come
 * after them (files written before lack them; readers union by name). A
 * removed or retyped column, or another format, is a terminal schema mismatch.
 */
function schemaChange(previous: ManifestTable | undefined, batch: SyncBatch, format: FileFormat): SyncColumn[] {
  if (!previous) return [];
  const had = previous.schema.filter((c) => c.name !== 'dt');
  const has = new Map(batch.columns.map((c) => [c.name, c.type]));
  const lost = had.filter((c) => has.get(c.name) !== c.type);
  if (lost.length > 0 || previous.format !== format) {
    const describe = (cols: readonly SyncColumn[]): string => cols.map((c) => `${c.name} ${c.type}`).join(', ');
    throw new TerminalError(
      `schema mismatch: ${batch.table.name} in the destination folder has (${describe(had)}) as ${previous.format}, ` +
        `the store now sends (${describe(batch.columns)}) as ${format}; point the destination at a new folder`,
    );
  }
  const known = new Set(had.map((c) => c.name));
  return batch.columns.filter((c) => !known.has(c.name));
}

async function placeFiles(
  store: Store,
  root: string,
  staging: string,
  batch: SyncBatch,
  format: FileFormat,
  schemaVersion: number,
): Promise<ManifestFile[]> {
  const counts = await rowsPerFile(store, staging, format);
  const placed: ManifestFile[] = [];
  for (const part of readdirSync(staging)
    .filter((d) => d.startsWith('dt='))
    .sort()) {
    const dir = join(root, batch.table.name, part);
    mkdirSync(dir, { recursive: true });
    for (const name of readdirSync(join(staging, part)).sort()) {
      const from = join(staging, part, name);
      const rel = `${batch.table.name}/${part}/part-${nextPart(dir)}.${EXTENSIONS[format]}`;
      const rows = counts.get(from) ?? 0;
      renameSync(from, join(root, rel));
      // Size and hash in one read of the placed file.
      const { bytes, sha256 } = await hashFile(join(root, rel));
      placed.push({
        path: rel,
        dt: part.slice(3),
        rows,
        bytes,
        sha256,
        run_id: batch.runId,
        watermark: batch.watermark,
        schema_version: schemaVersion,
      });
    }
  }
  return placed;
}

function nextPart(dir: string): number {
  const used = readdirSync(dir)
    .map((n) => /^part-(\d+)\./.exec(n)?.[1])
    .filter((n) => n !== undefined)
    .map(Number);
  return used.length === 0 ? 0 : Math.max(...used) + 1;
}

/** Rows in each staged file, read back by DuckDB (file metadata for Parquet). */
async function rowsPerFile(store: Store, staging: string, format: FileFormat): Promise<Map<string, number>> {
  const glob = sqlString(join(staging, '*', `*.${EXTENSIONS[format]}`));
  const sql =
    format === 'parquet'
      ? `SELECT file_name AS file, sum(num_rows) AS n FROM parquet_file_metadata(${glob}) GROUP BY file_name`
      : format === 'csv'
        ? `SELECT filename AS file, count(*) AS n FROM read_csv(${glob}, header = true, filename = true, all_varchar = true) GROUP BY filename`
        : `SELECT filename AS file, count(*) AS n FROM read_json(${glob}, format = 'newline_delimited', filename = true) GROUP BY filename`;
  const rows = await store.all<{ file: string; n: number }>(sql);
  return new Map(rows.map((r) => [r.file, Number(r.n)]));
}

function tableEntry(
  previous: ManifestTable | undefined,
  batch: SyncBatch,
  format: FileFormat,
  files: ManifestFile[],
  schema: { version: number; gained: SyncColumn[] },
): ManifestTable {
  const changes = previous?.schema_changes ?? [];
  const change = { version: schema.version, added: schema.gained, run_id: batch.runId, at: new Date().toISOString() };
  return {
    format,
    partitioning: ['dt'],
    schema: [...batch.columns, { name: 'dt', type: 'DATE' }],
    schema_version: schema.version,
    schema_changes: schema.gained.length > 0 ? [...changes, change] : changes,
    rows: files.reduce((n, f) => n + f.rows, 0),
    watermark: { from: previous ? previous.watermark.from : batch.watermark.from, to: batch.watermark.to },
    files,
    updated_at: new Date().toISOString(),
    run_id: batch.runId,
  };
}

async function stagedParquetToNdjson(store: Store, staging: string): Promise<void> {
  if (!existsSync(staging)) return;
  for (const part of readdirSync(staging)) {
    for (const name of readdirSync(join(staging, part)).filter((n) => n.endsWith('.parquet'))) {
      const from = join(staging, part, name);
      await store.run(
        `COPY (SELECT * FROM read_parquet(${sqlString(from)})) TO ${sqlString(from.replace(/\.parquet$/, '.ndjson'))} (FORMAT json)`,
      );
      rmSync(from);
    }
  }
}
