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

/** Where the file is written before the rename that publishes it (a crash leaves only a `.part`). */
export function exportTempPath(exportsDir: string, exportId: string, format: ExportFormat): string {
  return `${exportFilePath(exportsDir, exportId, format)}.part`;
}
