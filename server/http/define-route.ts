import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { object as zodObject, type z } from 'zod';
import { requireScope } from '../middleware/auth.middleware.js';
import type { OperationSpec } from '../openapi/registry.js';
import { parseBody, parseParams, parseQuery } from './parse.js';
import type { RouteKit } from './route-kit.js';

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** What a handler receives, already validated against the operation's schemas. */
export interface RouteInput<Q, P, B> {
  query: Out<Q>;
  params: Out<P>;
  body: Out<B>;
}

export type RouteHandler<Q, P, B> = (ctx: Context, input: RouteInput<Q, P, B>) => Promise<void> | void;

/**
 * Declares one operation: registers it in the OpenAPI registry and mounts it on
 * `router` behind auth → rate limit → scope → JSON body → idempotency → input
 * validation, in that order. `{x}` path segments become `:x` router params.
 */
export function defineRoute<
  Q extends z.ZodObject | undefined = undefined,
  P extends z.ZodObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(
  kit: RouteKit,
  router: Router,
  spec: OperationSpec & { query?: Q; params?: P; body?: B },
  handler: RouteHandler<Q, P, B>,
): void {
  kit.openapi.addOperation(spec);
  const chain: Middleware[] = [];
  if (!spec.public) chain.push(kit.middleware.auth, kit.middleware.rateLimit);
  if (spec.scope) chain.push(requireScope(spec.scope));
  if (spec.body) chain.push(kit.middleware.jsonBody);
  if (spec.idempotent) chain.push(kit.middleware.idempotency);
  chain.push(async (ctx) => {
    const input = {
      query: spec.query ? parseQuery(ctx, spec.query) : rejectAnyQuery(ctx),
      params: spec.params ? parseParams(ctx, spec.params) : undefined,
      body: spec.body ? parseBody(ctx, spec.body) : undefined,
    } as RouteInput<Q, P, B>;
    await handler(ctx, input);
  });
  const koaPath = spec.path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
  router.register(koaPath, [spec.method.toUpperCase()], chain as never, { name: spec.operationId });
}

/** An operation without a query schema takes no query parameters (unknown ones are a 400). */
function rejectAnyQuery(ctx: Context): undefined {
  const names = Object.keys(ctx.query);
  if (names.length > 0) parseQuery(ctx, emptyObject);
  return undefined;
}

const emptyObject = zodObject({});
