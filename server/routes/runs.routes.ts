import Router from '@koa/router';
import { z } from 'zod';
import { RUN_STATUSES } from '../../pipelines/engine/pipeline.js';
import { getRunById, listRunsPage } from '../../pipelines/runs.service.js';
import { fingerprint } from '../http/cursor.js';
import { defineRoute } from '../http/define-route.js';
import { cursorParam, limitParam, pageOf } from '../http/pagination.js';
import type { RouteKit } from '../http/route-kit.js';

const Run = z.object({
  run_id: z.string(), pipeline: z.string(), source: z.string().nullable(),
  status: z.enum(RUN_STATUSES),
  started_at: z.string(), finished_at: z.string().nullable(),
  rows_read: z.number().int(), rows_loaded: z.number().int(), rows_rejected: z.number().int(),
  rows_changed: z.number().int(), events_emitted: z.number().int(), error: z.string().nullable(),
}).describe('One pipeline run: what it read, loaded, quarantined and changed, and the events it emitted');

const ListQuery = z.object({
  pipeline: z.string().min(1).max(100).optional().describe('Only runs of this pipeline'),
  status: z.enum(RUN_STATUSES).optional().describe('Only runs in this state'),
  limit: limitParam,
  cursor: cursorParam,
});
const IdParams = z.object({ run_id: z.string().regex(/^run_[0-9a-z]+$/) });

/** GET /v1/runs and /v1/runs/{run_id}: pipeline run records (admin scope). */
export function runsRoutes(kit: RouteKit): Router {
  const router = new Router();
  defineRoute(kit, router, {
    method: 'get', path: '/v1/runs', operationId: 'listRuns', tags: ['pipelines'], scope: 'admin',
    summary: 'Pipeline runs, newest first', query: ListQuery,
    responses: { 200: { description: 'A page of runs', schema: pageOf(Run) } },
  }, async (ctx, { query }) => {
    const scope = `runs:${fingerprint({ p: query.pipeline ?? null, s: query.status ?? null })}`;
    const before = query.cursor ? String(kit.cursors.decode(scope, query.cursor)[0]) : null;
    const page = await listRunsPage(kit.state, { pipeline: query.pipeline ?? null, status: query.status ?? null, limit: query.limit, before });
    ctx.body = { data: page.runs, next_cursor: page.nextBefore ? kit.cursors.encode(scope, [page.nextBefore]) : null };
  });
  defineRoute(kit, router, {
    method: 'get', path: '/v1/runs/{run_id}', operationId: 'getRun', tags: ['pipelines'], scope: 'admin',
    summary: 'One pipeline run', params: IdParams, errors: ['not_found'],
    responses: { 200: { description: 'The run', schema: Run } },
  }, async (ctx, { params }) => {
    ctx.body = await getRunById(kit.state, params.run_id);
  });
  return router;
}
