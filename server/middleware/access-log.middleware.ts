import type { Middleware } from 'koa';
import { requestLogLevel, type Logger } from '../../config/logger.js';
import { routeLabel } from './metrics.middleware.js';

/**
 * One structured log line per request, written after the response is decided:
 * `info` in JSON logs, `debug` in a terminal's readable logs (config/logger.ts); 5xx always `error`.
 */
export function accessLogMiddleware(logger: Logger): Middleware {
  const level = requestLogLevel(logger);
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const principal = ctx.state['principal'] as { accountId?: string } | undefined;
      const entry = {
        request_id: ctx.state['requestId'],
        method: ctx.method,
        path: ctx.path,
        route: routeLabel(ctx as unknown as { _matchedRoute?: unknown }),
        status: ctx.status,
        ms: Math.round((performance.now() - started) * 100) / 100,
        account_id: principal?.accountId,
      };
      if (ctx.status >= 500) logger.error(entry, 'request');
      else logger[level](entry, 'request');
    }
  };
}
