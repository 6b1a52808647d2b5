import { resolve, sep } from 'node:path';
import { EXPORT_ID_PATTERN, FORMAT_FILES, type ExportFormat } from './export.config.js';
import { exportNotFound } from './export.errors.js';

/** Whether a string is a well-formed export id (checked before it is used anywhere near a path). */
export function isExportId(id: string): boolean {
  return EXPORT_ID_PATTERN.test(id);
}

/** The file name of an export: derived from its id and format only, never from request input. */
export function exportFileName(exportId: string, format: ExportFormat): string {
  if (!isExportId(exportId)) throw exportNotFound('export', exportId.slice(0, 64));
  return `${exportId}.${FORMAT_FILES[format].extension}`;
}

/**
 * The absolute path of an export's file inside `exportsDir`. The id pattern
 * already rules out separators and dots; the containment check is the second lock.
 */
export function exportFilePath(exportsDir: string, exportId: string, format: ExportFormat): string {
  const root = resolve(exportsDir);
  const path = resolve(root, exportFileName(exportId, format));
  if (!path.startsWith(root + sep)) throw exportNotFound('export', exportId.slice(0, 64));
  return path;
}

const ATTEMPT_PATTERN = /^[0-9a-z]{1,40}$/;

/**
 * Where the file is written before the rename that publishes it (a crash leaves
 * only a `.part`). Each attempt at a job writes its own, so a worker that lost
 * its job (cluster mode) never writes into the new owner's file.
 */
export function exportTempPath(exportsDir: string, exportId: string, format: ExportFormat, attemptId?: string): string {
  if (attemptId === undefined) return `${exportFilePath(exportsDir, exportId, format)}.part`;
  if (!ATTEMPT_PATTERN.test(attemptId)) throw new Error('an export attempt id is 1 to 40 of [0-9a-z]');
  return `${exportFilePath(exportsDir, exportId, format)}.${attemptId}.part`;
}

/** The attempt a temp file (`….part`) was written by; null when its name names none. */
export function tempFileAttempt(name: string): string | null {
  return /^exp_[0-9a-z]{21}\.[a-z]+\.([0-9a-z]{1,40})\.part$/.exec(name)?.[1] ?? null;
}
