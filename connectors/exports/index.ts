/**
 * The export connector: async export jobs written with DuckDB's own COPY writers
 * (JSON, NDJSON, CSV, Parquet) or streamed into Arrow IPC, published atomically,
 * downloadable until they expire.
 */
export {
  EXPORT_FORMATS,
  EXPORT_SOURCES,
  EXPORT_STATUSES,
  ExportRequestSchema,
  FORMAT_FILES,
  MAX_EXPORT_HANDLES,
  type ExportFormat,
  type ExportRequest,
  type ExportSource,
  type ExportSourceKind,
  type ExportStatus,
} from './export.config.js';
export { ExportExpiredError } from './export.errors.js';
export { availableFields, defaultFieldNames } from './export-fields.js';
export { exportFileName, isExportId } from './export-files.js';
export { downloadPath, toExportJob, type ExportJob } from './export-job.js';
export {
  createExport,
  getExport,
  listExports,
  openExportDownload,
  type ExportCaller,
  type ExportDownload,
} from './export-job.service.js';
export { ExportLeaseLostError, runExportJob, hashFile, type ExportOutcome } from './export.engine.js';
export { createExportWorker, runExportNow, type ExportWorker, type ExportWorkerOptions } from './export.worker.js';
