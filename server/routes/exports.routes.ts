import Router from '@koa/router';
import { z } from 'zod';
import { timestampSchema } from '../../data/timestamps.js';
import {
  EXPORT_FORMATS,
  EXPORT_SOURCES,
  EXPORT_STATUSES,
  ExportRequestSchema,
  FORMAT_FILES,
  availableFields,
  createExport,
  defaultFieldNames,
  getExport,
  listExports,
  openExportDownload,
} from '../../connectors/exports/index.js';
import { defineRoute } from '../http/define-route.js';
import { ID_KEY, keysetPage } from '../http/keyset-page.js';
import { cursorParam, limitParam, pageOf } from '../http/pagination.js';
import type { RouteKit } from '../http/route-kit.js';
import { principalOf } from '../middleware/auth.middleware.js';

const ExportJobSchema = z.object({
  id: z.string().describe('exp_…'),
  status: z.enum(EXPORT_STATUSES),
  progress: z.number().int().min(0).max(100),
  source: z.enum(EXPORT_SOURCES),
  filters: z
    .record(z.string(), z.union([z.string(), z.number()]))
    .optional()
    .describe(
      'search and lookalikes sources: the search parameters as the search read them (numeric ones as numbers, the rest as text)',
    ),
  list_id: z.string().optional(),
  handles: z.array(z.object({ handle: z.string(), platform: z.string().nullable() })).optional(),
  campaign_id: z.string().optional(),
  handle: z.string().optional().describe('lookalikes source: the creator the matches are like (`@name`)'),
  platform: z.string().nullable().optional().describe('lookalikes source: the creator’s platform, if given'),
  basis: z.enum(['content', 'audience', 'both']).optional().describe('lookalikes source: what the matches rank by'),
  limit: z.number().int().optional().describe('lookalikes source: how many of the most similar matches were asked for'),
  format: z.enum(EXPORT_FORMATS),
  fields: z.array(z.string()).nullable().describe('The chosen fields; null means the defaults'),
  row_count: z
    .number()
    .int()
    .nullable()
    .describe('Rows counted when the job was created; the rows written once it succeeded'),
  bytes: z.number().int().nullable(),
  sha256: z.string().nullable().describe('Hex SHA-256 of the file'),
  created_at: timestampSchema('When the export was requested'),
  started_at: timestampSchema('When a worker started it').nullable(),
  finished_at: timestampSchema('When it finished').nullable(),
  expires_at: timestampSchema('After this the file is removed and the download answers 410').nullable(),
  error: z.string().nullable(),
  download_url: z.string().nullable().describe('Path of the file once the export succeeded'),
});

/** The media type of each format's file, without parameters: what a download can carry. */
const DOWNLOAD_MEDIA_TYPES = Object.values(FORMAT_FILES).map((f) => f.contentType.split(';')[0]!.trim());

const IdParams = z.object({ id: z.string().min(1).max(64).describe('exp_…') });
const PageQuery = z.object({ limit: limitParam, cursor: cursorParam });

/** The exports endpoints; every operation is scoped to the caller's account. */
export function exportsRoutes(kit: RouteKit): Router {
  const router = new Router();
  kit.openapi.addWebhook({
    name: 'export.completed',
    summary: 'An export finished: succeeded (downloadable until expires_at) or failed (see error)',
    payload: z.object({
      type: z.literal('export.completed'),
      timestamp: timestampSchema('When the export finished'),
      data: z.object({
        export_id: z.string(),
        status: z.enum(['succeeded', 'failed']),
        format: z.enum(EXPORT_FORMATS),
        row_count: z.number().int().nullable(),
        bytes: z.number().int().nullable(),
        sha256: z.string().nullable(),
        expires_at: timestampSchema('When the file is removed').nullable(),
        download_url: z.string().nullable().describe('Path of the file; null when the export failed'),
        error: z.string().optional().describe('Failed exports only: what went wrong'),
      }),
    }),
  });

  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/exports',
      operationId: 'createExport',
      tags: ['exports'],
      scope: 'exports:write',
      summary: 'Start an export',
      body: ExportRequestSchema,
      idempotent: true,
      errors: ['not_found', 'limit_exceeded', 'creator_not_found', 'ambiguous_handle', 'unavailable'],
      description:
        'Sources: `search` (`filters` = the search parameters, including `sort`), `list` (`list_id`), `creators` ' +
        '(`handles`: `@name` or {handle, platform}; a bare handle exports it on every platform it exists on), `campaign` ' +
        '(`campaign_id`: one row per creator per day), `lookalikes` (`handle`, `platform`, `basis`, `filters` and `limit`: ' +
        'the `limit` most similar creators as GET /v1/creators/{handle}/lookalikes ranks them, most similar first, ' +
        'each row with its `rank`, `similarity`, `reasons` (the details) and `reason_kinds`; ranked from the search index ' +
        'when the job is created: 404 `creator_not_found`, 409 `ambiguous_handle`, 503 `unavailable` while the index is built). ' +
        "`fields` picks columns from the source's allow-list (unknown ones " +
        'are a 400 naming them); without it the defaults are the flat creator columns and top audience columns. ' +
        "Rows are counted first: over the plan's cap (entry 10,000, enterprise 5,000,000) the answer is 403 " +
        '`limit_exceeded` and nothing is queued. Also 403 `limit_exceeded`, with `limit` naming the limit and `limit_value` its ' +
        "value: `exports_in_flight` when the account already has its plan's number of exports queued or running (entry 5, " +
        "enterprise 20; wait for one to finish), `export_storage_bytes` when its unexpired files already fill the plan's " +
        'storage (entry 1 GiB, enterprise 50 GiB; wait for them to expire). Jobs are taken fairly across accounts (the ' +
        'account with the fewest running, then the one served longest ago). A job that finds the server short of disk space ' +
        'fails at start with an `error` saying so. The job runs in the background; poll it or subscribe to `export.completed`. ' +
        'CSV is RFC 4180 (header row, CRLF, UTF-8); text cells starting with = + - @ tab or CR get a leading apostrophe. ' +
        'List fields (hashtags, mentions, brands, linked_platforms; an empty list when there is none) are arrays in JSON and NDJSON, ' +
        'LIST<UTF8> in Parquet, List<Utf8> in Arrow, and one CSV cell holding the JSON array text (`["fitness","mealprep"]`). ' +
        'Contact details are never exported, only `has_contact`. ' +
        'Timestamps are RFC 3339 UTC with milliseconds (2026-05-01T12:00:00.000Z) in JSON, NDJSON and CSV, native timestamps in Parquet and Arrow.\n\n' +
        `Fields of search, list and creators exports: ${fieldList('list')} (\`added_at\` for lists only). ` +
        `Defaults: ${defaultFieldNames('search').join(', ')}.\n\n` +
        `Lookalikes exports have those fields and rank, similarity, reasons, reason_kinds (all four first by default).\n\nFields of campaign exports (all by default): ${fieldList('campaign')}.`,
      responses: {
        202: { description: 'Queued', schema: ExportJobSchema, headers: { Location: { description: 'The job' } } },
      },
    },
    async (ctx, { body }) => {
      const principal = principalOf(ctx);
      const job = await createExport(
        kit.store,
        kit.state,
        kit.plans,
        { accountId: principal.accountId, plan: principal.plan },
        body,
        { lookalikes: body.source === 'lookalikes' ? kit.creatorSearch() : undefined },
      );
      ctx.status = 202;
      ctx.set('Location', `/v1/exports/${job.id}`);
      ctx.body = job;
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/exports',
      operationId: 'listExports',
      tags: ['exports'],
      scope: 'read',
      summary: 'Your exports, newest first',
      query: PageQuery,
      responses: { 200: { description: 'A page of export jobs', schema: pageOf(ExportJobSchema) } },
    },
    async (ctx, { query }) => {
      const accountId = principalOf(ctx).accountId;
      ctx.body = await keysetPage(
        kit.cursors,
        query,
        { scope: `exports:${accountId}`, shape: ID_KEY },
        (after, limit) => listExports(kit.state, accountId, { limit, after: after?.[0] ?? null }),
      );
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/exports/{id}',
      operationId: 'getExport',
      tags: ['exports'],
      scope: 'read',
      summary: 'One export: status, progress, size and checksum',
      params: IdParams,
      errors: ['not_found'],
      responses: { 200: { description: 'The job', schema: ExportJobSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = await getExport(kit.state, principalOf(ctx).accountId, params.id);
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/exports/{id}/download',
      operationId: 'downloadExport',
      tags: ['exports'],
      scope: 'read',
      summary: 'Download a finished export',
      params: IdParams,
      errors: ['not_found', 'conflict', 'gone'],
      description:
        'Streams the file with `Content-Length`, `Content-Disposition` and its SHA-256 (`Repr-Digest`, RFC 9530, ' +
        'and `X-Checksum-SHA256` in hex). 409 `conflict` while the job is queued or running (or failed); 410 once it expired.',
      responses: {
        200: {
          description: "The file, in the media type of the export's format",
          contentType: DOWNLOAD_MEDIA_TYPES,
          headers: {
            'Content-Disposition': { description: 'attachment; filename="exp_….<ext>"' },
            'Repr-Digest': { description: 'sha-256=:<base64>:' },
            'X-Checksum-SHA256': { description: 'Hex SHA-256 of the file' },
          },
        },
      },
    },
    async (ctx, { params }) => {
      const d = await openExportDownload(kit.state, kit.config, principalOf(ctx).accountId, params.id);
      ctx.set('Content-Disposition', `attachment; filename="${d.fileName}"`);
      ctx.set('Repr-Digest', `sha-256=:${Buffer.from(d.sha256, 'hex').toString('base64')}:`);
      ctx.set('X-Checksum-SHA256', d.sha256);
      ctx.set('ETag', `"${d.sha256}"`);
      ctx.set('Cache-Control', 'private, max-age=0');
      ctx.type = d.contentType;
      if (ctx.method === 'HEAD') {
        // headers only: nothing would read a stream, so the handle is closed here
        await d.file.close();
        ctx.status = 200;
      } else {
        ctx.body = d.file.createReadStream();
      }
      ctx.length = d.bytes;
    },
  );
  return router;
}

function fieldList(kind: 'list' | 'campaign'): string {
  return availableFields(kind)
    .map((f) => f.name)
    .join(', ');
}
