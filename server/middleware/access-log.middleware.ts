import type { Middleware } from 'koa';
import type { Logger } from '../../config/logger.js';
import { routeLabel } from './metrics.middleware.js';

/** One structured JSON log line per request, written after the response is decided. */
export function accessLogMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const principal = ctx.state['principal'] as { accountId?: string } | undefined;
      const entry = {
        request_id: ctx.state['requestId'], method: ctx.method, path: ctx.path,
        route: routeLabel(ctx as unknown as { _matchedRoute?: unknown }), status: ctx.status,
        ms: Math.round((performance.now() - started) * 100) / 100, account_id: principal?.accountId,
      };
      if (ctx.status >= 500) logger.error(entry, 'request');
      else logger.info(entry, 'request');
    }
  };
}
