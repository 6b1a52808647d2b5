import { z } from 'zod';
import { SEARCH_FILTER_NAMES } from '../../data/creators/search-filters.js';
import { PLATFORMS } from '../../data/reference/taxonomy.js';

/** File formats an export can be written in. */
export const EXPORT_FORMATS = ['json', 'ndjson', 'csv', 'parquet', 'arrow'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What an export reads from. */
export const EXPORT_SOURCES = ['search', 'list', 'creators', 'campaign', 'lookalikes'] as const;
export type ExportSourceKind = (typeof EXPORT_SOURCES)[number];

/** Lifecycle of an export job. */
export const EXPORT_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'expired'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** How a finished file is served: media type and file extension per format. */
export const FORMAT_FILES: Readonly<Record<ExportFormat, { contentType: string; extension: string }>> = Object.freeze({
  json: { contentType: 'application/json; charset=utf-8', extension: 'json' },
  ndjson: { contentType: 'application/x-ndjson; charset=utf-8', extension: 'ndjson' },
  csv: { contentType: 'text/csv; charset=utf-8; header=present', extension: 'csv' },
  parquet: { contentType: 'application/vnd.apache.parquet', extension: 'parquet' },
  arrow: { contentType: 'application/vnd.apache.arrow.stream', extension: 'arrows' },
});

/**
 * Export ids are `exp_` and 21 base-36 characters (data/ids.ts). Every id that
 * reaches the file system is checked against this first, and file names are
 * derived from the id alone, so no request can name a path outside the folder.
 */
export const EXPORT_ID_PATTERN = /^exp_[0-9a-z]{21}$/;

/** Most handles one `creators` export may name. */
export const MAX_EXPORT_HANDLES = 10_000;

/** Most matches one `lookalikes` export may ask for, and its default (docs/lookalikes.md). */
export const MAX_LOOKALIKE_MATCHES = 10_000;
export const DEFAULT_LOOKALIKE_MATCHES = 1_000;

/** What a lookalike ranks by (docs/lookalikes.md). */
export const LOOKALIKE_BASES = ['content', 'audience', 'both'] as const;

const Handle = z.string().trim().min(1).max(100);
const Platform = z.enum(PLATFORMS);
const FilterValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number()]))]);
const Fields = z
  .array(z.string().min(1).max(64))
  .min(1)
  .max(200)
  .optional()
  .describe("Columns to export, from the source's allow-list, in this order; omit for the defaults");
const Format = z.enum(EXPORT_FORMATS).describe('File format; arrow is an Arrow IPC stream');

/**
 * The body of `POST /v1/exports`: the source with its own parameters, a format
 * and optional fields. Unknown keys are rejected.
 */
export const ExportRequestSchema = z.discriminatedUnion('source', [
  z.strictObject({
    source: z.literal('search'),
    filters: z
      .record(z.string(), FilterValue)
      .default({})
      // The names come from the search's own schema, so the document cannot list a filter the search does not take.
      .meta({ propertyNames: { enum: [...SEARCH_FILTER_NAMES, 'sort'] } })
      .describe(
        'The search parameters of GET /v1/creators/search (and sort), without limit and cursor; each read exactly as ' +
          'the search reads it (same names, bounds, codes and case rules), a value refused there is refused here as a 400 naming filters.<name>',
      ),
    format: Format,
    fields: Fields,
  }),
  z.strictObject({
    source: z.literal('list'),
    list_id: z.string().min(1).max(64).describe('One of your lists (lst_…)'),
    format: Format,
    fields: Fields,
  }),
  z.strictObject({
    source: z.literal('creators'),
    handles: z
      .array(z.union([Handle, z.strictObject({ handle: Handle, platform: Platform.optional() })]))
      .min(1)
      .max(MAX_EXPORT_HANDLES)
      .describe('`@name` (every platform it exists on) or {handle, platform}; up to 10,000'),
    format: Format,
    fields: Fields,
  }),
  z.strictObject({
    source: z.literal('campaign'),
    campaign_id: z.string().min(1).max(64).describe('One of your campaigns (cmp_…)'),
    format: Format,
    fields: Fields,
  }),
  z.strictObject({
    source: z.literal('lookalikes'),
    handle: Handle.describe('The creator the matches are like (`@name`)'),
    platform: Platform.optional().describe('The creator’s platform; needed when the handle exists on several'),
    basis: z
      .enum(LOOKALIKE_BASES)
      .default('both')
      .describe('content, audience or both, as GET /v1/creators/{handle}/lookalikes takes it'),
    filters: z
      .record(z.string(), FilterValue)
      .default({})
      .meta({ propertyNames: { enum: SEARCH_FILTER_NAMES.filter((n) => n !== 'platform') } })
      .describe(
        'The search parameters that narrow the matches, as the lookalikes endpoint takes them: every search parameter ' +
          'but platform (the creator’s own) and sort (matches are ranked by similarity); a value refused there is refused here as a 400 naming filters.<name>',
      ),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_LOOKALIKE_MATCHES)
      .default(DEFAULT_LOOKALIKE_MATCHES)
      .describe('How many of the most similar matches to export (1–10,000, default 1,000)'),
    format: Format,
    fields: Fields,
  }),
]);
export type ExportRequest = z.infer<typeof ExportRequestSchema>;

/** A creator named in a `creators` export: the handle normalised to `@lower`, the platform if given. */
export interface HandleRef {
  handle: string;
  platform: string | null;
}

/** The stored, normalised description of what an export reads (the `exports.source` JSON). */
export type ExportSource =
  | { type: 'search'; filters: Record<string, string> }
  | { type: 'list'; list_id: string }
  | { type: 'creators'; handles: HandleRef[] }
  | { type: 'campaign'; campaign_id: string }
  | {
      type: 'lookalikes';
      handle: string;
      platform: string | null;
      basis: (typeof LOOKALIKE_BASES)[number];
      filters: Record<string, string>;
      limit: number;
    };
