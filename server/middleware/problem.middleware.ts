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

/** At most this many entries in `errors`; `errors_omitted` counts the rest. */
export const MAX_PROBLEM_ERRORS = 50;
/** `detail` longer than this is cut, saying how much was left out. */
export const MAX_PROBLEM_DETAIL = 2000;

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
    detail: boundedDetail(detail),
    request_id: String(ctx.state['requestId'] ?? ''),
  };
  if (from && from.errors.length > 0) {
    body.errors = from.errors.slice(0, MAX_PROBLEM_ERRORS);
    if (from.errors.length > MAX_PROBLEM_ERRORS) body['errors_omitted'] = from.errors.length - MAX_PROBLEM_ERRORS;
  }
  for (const [name, value] of Object.entries(from?.headers ?? {})) ctx.set(name, value);
  ctx.status = entry.status;
  ctx.type = 'application/problem+json';
  ctx.body = JSON.stringify(body);
}

/** A detail text within MAX_PROBLEM_DETAIL characters, saying how many more there were. */
function boundedDetail(detail: string): string {
  if (detail.length <= MAX_PROBLEM_DETAIL) return detail;
  return `${detail.slice(0, MAX_PROBLEM_DETAIL)}… (${detail.length - MAX_PROBLEM_DETAIL} more characters)`;
}
