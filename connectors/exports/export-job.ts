import type { ExportFormat, ExportSource, ExportStatus } from './export.config.js';
import type { ExportRow } from './export-job.queries.js';
import { SearchFiltersSchema } from '../../data/creators/search-filters.js';

/** An export job as the API shows it. */
export interface ExportJob {
  id: string;
  status: ExportStatus;
  progress: number;
  source: ExportSource['type'];
  /** The search parameters (a search's, or those narrowing lookalikes) as the search read them: numbers as numbers, the rest as sent. */
  filters?: Record<string, string | number>;
  list_id?: string;
  handles?: Array<{ handle: string; platform: string | null }>;
  campaign_id?: string;
  /** A lookalikes export's creator, basis and match count. */
  handle?: string;
  platform?: string | null;
  basis?: string;
  limit?: number;
  format: ExportFormat;
  fields: string[] | null;
  /** Rows counted when the job was created; the written count once it succeeded. */
  row_count: number | null;
  bytes: number | null;
  sha256: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  expires_at: string | null;
  error: string | null;
  /** Path of the file, present once it can be downloaded. */
  download_url: string | null;
}

/** The download path of an export (relative to the service's base URL). */
export function downloadPath(exportId: string): string {
  return `/v1/exports/${exportId}/download`;
}

/** A succeeded job past its time to live is expired, even before the worker has removed its file. */
export function effectiveStatus(row: Pick<ExportRow, 'status' | 'expires_at'>, now: Date): ExportStatus {
  if (row.status === 'succeeded' && row.expires_at && row.expires_at.getTime() <= now.getTime()) return 'expired';
  return row.status as ExportStatus;
}

/** Maps an `exports` row to the API's job shape; the stored source's parameters sit beside `source`. */
export function toExportJob(row: ExportRow, now: Date = new Date()): ExportJob {
  const source = JSON.parse(row.source) as ExportSource;
  const status = effectiveStatus(row, now);
  const { type, ...params } = source;
  return {
    id: row.export_id,
    status,
    progress: row.progress,
    source: type,
    ...params,
    ...(source.type === 'search' || source.type === 'lookalikes' ? { filters: echoedFilters(source.filters) } : {}),
    format: row.format as ExportFormat,
    fields: row.fields ?? null,
    row_count: row.row_count,
    bytes: row.bytes,
    sha256: row.sha256,
    created_at: iso(row.created_at) as string,
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
    expires_at: iso(row.expires_at),
    error: row.error,
    download_url: status === 'succeeded' ? downloadPath(row.export_id) : null,
  };
}

/**
 * The stored filters (query text) echoed as the search parsed them: a numeric
 * parameter is a JSON number (`followers_min: 10000`, not `"10000"`), every other
 * one the text the search read.
 */
function echoedFilters(filters: Record<string, string>): Record<string, string | number> {
  const parsed = SearchFiltersSchema.safeParse(filters);
  const values: Record<string, unknown> = parsed.success ? parsed.data : {};
  return Object.fromEntries(
    Object.entries(filters).map(([k, v]) => [k, typeof values[k] === 'number' ? (values[k] as number) : v]),
  );
}

function iso(d: Date | null): string | null {
  return d ? d.toISOString() : null;
}
