import Router from '@koa/router';
import { z } from 'zod';
import { ConflictError, LimitExceededError, UnavailableError } from '../../data/errors.js';
import { defineRoute } from '../../server/http/define-route.js';
import type { RouteKit } from '../../server/http/route-kit.js';
import { principalOf } from '../../server/middleware/auth.middleware.js';

let created = 0;

/**
 * Probe endpoints mounted only in tests (AppDeps.extraRoutes): a creating POST
 * with a body and idempotency, and endpoints that throw each domain error, so
 * the framework's handling is exercised over real HTTP before every feature exists.
 */
export function probeRoutes(kit: RouteKit): Router {
  const router = new Router();
  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/probes',
      operationId: 'createProbe',
      tags: ['probes'],
      scope: 'lists:write',
      idempotent: true,
      summary: 'Create a probe',
      body: z.object({
        name: z.string().min(1).max(50),
        tags: z.array(z.string()).max(3).optional(),
        nested: z.strictObject({ a: z.number() }).optional(),
      }),
      responses: {
        201: { description: 'Created', schema: z.object({ id: z.string(), name: z.string(), account_id: z.string() }) },
      },
    },
    (ctx, { body }) => {
      created += 1;
      const id = `prb_${created}`;
      ctx.status = 201;
      ctx.set('Location', `/v1/probes/${id}`);
      ctx.body = { id, name: body.name, account_id: principalOf(ctx).accountId };
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/probes/fail/{kind}',
      operationId: 'failProbe',
      tags: ['probes'],
      summary: 'Throws the named error',
      params: z.object({ kind: z.enum(['conflict', 'limit', 'crash', 'unavailable']) }),
      errors: ['conflict', 'limit_exceeded', 'unavailable'],
      responses: { 200: { description: 'never' } },
    },
    (_ctx, { params }) => {
      if (params.kind === 'conflict') throw new ConflictError('the probe is busy');
      if (params.kind === 'limit')
        throw new LimitExceededError('the entry plan allows 5 probes', { name: 'probes', value: 5 });
      if (params.kind === 'unavailable') throw new UnavailableError('the probe backend is down');
      throw new Error('secret internal detail: password=hunter2 at /srv/app.ts:42');
    },
  );
  return router;
}

/** How many probes the create handler actually ran (replays do not run it). */
export function probesCreated(): number {
  return created;
}
