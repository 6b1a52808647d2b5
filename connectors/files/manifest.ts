import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SyncColumn } from '../warehouse/tables.js';
import type { FileFormat } from './config.js';

export const MANIFEST_NAME = '_manifest.json';

/** One data file, relative to the destination folder. */
export interface ManifestFile {
  path: string;
  /** The `dt=` partition it belongs to. */
  dt: string;
  rows: number;
  bytes: number;
  sha256: string;
  run_id: string;
  watermark: { from: string | null; to: string | null };
  /** The table's schema version the file was written with (absent: 1); older files lack the later columns. */
  schema_version?: number;
}

/** An additive schema change: the columns a table gained, appended after the ones it had. */
export interface ManifestSchemaChange {
  version: number;
  added: SyncColumn[];
  run_id: string;
  at: string;
}

export interface ManifestTable {
  format: FileFormat;
  /** Hive partition keys, in path order. */
  partitioning: string[];
  /** Column names and DuckDB types of the current version, the partition key last. */
  schema: SyncColumn[];
  /** 1 for the columns the table was first written with, one more per change (absent: 1). */
  schema_version?: number;
  /** How the schema grew, oldest first. */
  schema_changes?: ManifestSchemaChange[];
  rows: number;
  /** The range of the table's cursor the files cover. */
  watermark: { from: string | null; to: string | null };
  files: ManifestFile[];
  updated_at: string;
  run_id: string;
}

/**
 * `_manifest.json`: what the folder holds, for loaders that want a list rather
 * than a glob. It is replaced atomically after the files it names are in place.
 */
export interface Manifest {
  version: 1;
  generator: 'creator-data-service';
  updated_at: string;
  tables: Record<string, ManifestTable>;
}

export function readManifest(root: string): Manifest {
  const path = join(root, MANIFEST_NAME);
  if (!existsSync(path))
    return { version: 1, generator: 'creator-data-service', updated_at: new Date().toISOString(), tables: {} };
  return JSON.parse(readFileSync(path, 'utf8')) as Manifest;
}

/** Writes beside, then renames over: a reader sees the old manifest or the new one, never half. */
export function writeManifest(root: string, manifest: Manifest): void {
  const path = join(root, MANIFEST_NAME);
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(tmp, path);
}
