import Router from '@koa/router';
import { z } from 'zod';
import { timestampSchema } from '../../data/timestamps.js';
import { RUN_STATUSES } from '../../pipelines/engine/pipeline.js';
import { getRunById, listRunRejectsPage, listRunsPage } from '../../pipelines/runs.service.js';
import { fingerprint } from '../http/cursor.js';
import { defineRoute } from '../http/define-route.js';
import { ID_KEY, keysetPage } from '../http/keyset-page.js';
import { cursorParam, limitParam, pageOf } from '../http/pagination.js';
import type { RouteKit } from '../http/route-kit.js';

const Run = z
  .object({
    run_id: z.string(),
    pipeline: z.string(),
    source: z.string().nullable(),
    status: z.enum(RUN_STATUSES),
    started_at: timestampSchema('When the run started'),
    finished_at: timestampSchema('When it finished; null while running').nullable(),
    rows_read: z.number().int(),
    rows_loaded: z.number().int(),
    rows_rejected: z.number().int(),
    rows_changed: z.number().int(),
    rows_stale: z
      .number()
      .int()
      .describe(
        'Valid rows ignored because the stored row is newer (a later `updated_at`, or `as_of` for audience): nothing changed for them',
      ),
    events_emitted: z.number().int(),
    error: z.string().nullable(),
    warnings: z
      .array(z.string())
      .describe(
        'What the run loaded despite, e.g. file columns the entity does not have (ignored); empty when nothing',
      ),
  })
  .describe('One pipeline run: what it read, loaded, quarantined and changed, and the events it emitted');

const ListQuery = z.object({
  pipeline: z.string().min(1).max(100).optional().describe('Only runs of this pipeline'),
  status: z.enum(RUN_STATUSES).optional().describe('Only runs in this state'),
  limit: limitParam,
  cursor: cursorParam,
});
const IdParams = z.object({ run_id: z.string().regex(/^run_[0-9a-z]+$/) });

const Reject = z
  .object({
    file: z.string().nullable().describe('The file the row came from, as the run read it'),
    line: z
      .number()
      .int()
      .nullable()
      .describe('CSV: the line in the file (the header is line 1); NDJSON and JSON: the record number from 1'),
    column: z
      .string()
      .nullable()
      .describe('The column at fault; null for a fault of the whole row (a duplicate key, surplus fields)'),
    value: z
      .string()
      .nullable()
      .describe("The column's value as the file has it; null when missing or for a fault of the whole row"),
    reason: z
      .string()
      .describe('What is wrong, e.g. "not a valid bigint", "is required", "unknown creator instagram @x"'),
  })
  .describe('One fault of a rejected row. A row with several faults has one entry per fault, in file order');

const RejectsQuery = z.object({ limit: limitParam, cursor: cursorParam });
/** A fault's keyset: its quarantine row id. */
const REJECT_KEY = ['number'] as const;

/** GET /v1/runs, /v1/runs/{run_id} and /v1/runs/{run_id}/rejects: pipeline run records and their quarantine (admin scope). */
export function runsRoutes(kit: RouteKit): Router {
  const router = new Router();
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/runs',
      operationId: 'listRuns',
      tags: ['pipelines'],
      scope: 'admin',
      summary: 'Pipeline runs, newest first',
      query: ListQuery,
      responses: { 200: { description: 'A page of runs', schema: pageOf(Run) } },
    },
    async (ctx, { query }) => {
      const filter = { pipeline: query.pipeline ?? null, status: query.status ?? null };
      const scope = `runs:${fingerprint({ p: filter.pipeline, s: filter.status })}`;
      ctx.body = await keysetPage(kit.cursors, query, { scope, shape: ID_KEY }, (after, limit) =>
        listRunsPage(kit.state, { ...filter, limit, before: after?.[0] ?? null }),
      );
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/runs/{run_id}',
      operationId: 'getRun',
      tags: ['pipelines'],
      scope: 'admin',
      summary: 'One pipeline run',
      params: IdParams,
      errors: ['not_found'],
      responses: { 200: { description: 'The run', schema: Run } },
    },
    async (ctx, { params }) => {
      ctx.body = await getRunById(kit.state, params.run_id);
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/runs/{run_id}/rejects',
      operationId: 'listRunRejects',
      tags: ['pipelines'],
      scope: 'admin',
      summary: "A run's rejected rows: every fault, in file order",
      params: IdParams,
      query: RejectsQuery,
      errors: ['not_found'],
      responses: {
        200: { description: 'A page of faults; `rows_rejected` on the run counts the rows', schema: pageOf(Reject) },
      },
    },
    async (ctx, { params, query }) => {
      ctx.body = await keysetPage(
        kit.cursors,
        query,
        { scope: `rejects:${params.run_id}`, shape: REJECT_KEY },
        (after, limit) => listRunRejectsPage(kit.state, kit.store, params.run_id, { limit, after: after?.[0] ?? null }),
      );
    },
  );
  return router;
}
