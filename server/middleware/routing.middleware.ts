import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { HttpProblem } from '../http/error-catalogue.js';

/**
 * Runs after every router: a request no route answered is a 404 problem, or a
 * 405 with `Allow` when the path exists under other methods. Routers are asked
 * directly (`match`), so this works however many routers are mounted.
 */
export function routingFallbackMiddleware(routers: readonly Router[]): Middleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    const allowed = new Set<string>();
    for (const router of routers) {
      for (const layer of router.match(ctx.path, ctx.method).path) for (const m of layer.methods) allowed.add(m);
    }
    if (allowed.size > 0 && !allowed.has(ctx.method)) {
      const allow = [...allowed].sort().join(', ');
      throw new HttpProblem('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; use ${allow}.`, {
        headers: { Allow: allow },
      });
    }
    throw new HttpProblem('not_found', `No route ${ctx.method} ${ctx.path}; see /v1/openapi.json for the API.`);
  };
}

/** HSTS over TLS and a few headers every JSON API should send. */
export function securityHeadersMiddleware(tls: boolean): Middleware {
  return async (ctx, next) => {
    ctx.set('X-Content-Type-Options', 'nosniff');
    if (tls) ctx.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
    await next();
  };
}
