import type { Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { HttpProblem } from '../http/error-catalogue.js';

/**
 * JSON bodies only, up to `limit`: a body of another type is a 415, a larger one
 * a 413, malformed JSON (or a JSON scalar) a 400 `invalid_body`.
 */
export function jsonBodyMiddleware(limit: string): Middleware {
  const parse = bodyParser({
    enableTypes: ['json'], jsonLimit: limit, strict: true,
    onerror: (error: Error & { status?: number; type?: string }) => {
      if (error.status === 413 || error.type === 'entity.too.large') {
        throw new HttpProblem('payload_too_large', `The body is larger than ${limit}.`);
      }
      if (error.status === 415) throw new HttpProblem('unsupported_media_type', 'The body encoding or charset is not supported; send UTF-8 JSON.');
      throw new HttpProblem('invalid_body', 'The body is not valid JSON (an object or an array is expected).');
    },
  });
  return async (ctx, next) => {
    if (hasBody(ctx.req.headers) && !ctx.request.is('application/json', '+json')) {
      throw new HttpProblem('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.',
        { extensions: { accepted: ['application/json'] } });
    }
    await parse(ctx, next);
  };
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
