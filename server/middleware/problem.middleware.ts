import type { Context, Middleware } from 'koa';
import type { Logger } from '../../config/logger.js';
import { DomainError } from '../../data/errors.js';
import { ERROR_CATALOGUE, ERROR_TYPE_BASE, type ErrorCode } from '../http/error-catalogue.js';

/** The RFC 9457 body every error response carries. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: ErrorCode;
  detail: string;
  request_id: string;
  errors?: Array<{ param?: string; field?: string; message: string }>;
  [extension: string]: unknown;
}

/**
 * The one place error bodies are written. Domain errors map through the
 * catalogue; anything else is a 500 `internal` that says nothing internal
 * (the log keeps the stack, keyed by request id).
 */
export function problemMiddleware(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof DomainError) {
        writeProblem(ctx, error.code, error.message, error);
        return;
      }
      logger.error({ err: error, request_id: ctx.state['requestId'] }, 'unhandled error');
      writeProblem(ctx, 'internal', 'An unexpected error occurred; quote the request_id if you contact support.');
    }
  };
}

/**
 * Writes a problem+json response for `code`. Only the catch above calls it:
 * 404/405 are thrown as `HttpProblem` by the routing fallback and land here too.
 */
function writeProblem(ctx: Context, code: ErrorCode, detail: string, from?: DomainError): void {
  const entry = ERROR_CATALOGUE[code];
  const body: ProblemBody = {
    ...(from?.extensions ?? {}),
    type: `${ERROR_TYPE_BASE}${code}`,
    title: entry.title,
    status: entry.status,
    code,
    detail,
    request_id: String(ctx.state['requestId'] ?? ''),
  };
  if (from && from.errors.length > 0) body.errors = from.errors;
  for (const [name, value] of Object.entries(from?.headers ?? {})) ctx.set(name, value);
  ctx.status = entry.status;
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify(body);
}
