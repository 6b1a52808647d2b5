import type { Middleware } from 'koa';
import bodyParser from 'koa-bodyparser';
import { HttpProblem } from '../http/error-catalogue.js';

/** The deepest nesting a body may have; no request of the API comes near it. */
export const MAX_BODY_DEPTH = 32;

/**
 * JSON bodies only, up to `limit`: a body of another type is a 415, a larger one
 * a 413, malformed JSON (or a JSON scalar) a 400 `invalid_body`, and so is one
 * nested deeper than MAX_BODY_DEPTH, before any code walks it recursively.
 */
export function jsonBodyMiddleware(limit: string): Middleware {
  const parse = bodyParser({
    enableTypes: ['json'],
    jsonLimit: limit,
    strict: true,
    onerror: (error: Error & { status?: number; type?: string }) => {
      if (error.status === 413 || error.type === 'entity.too.large') {
        throw new HttpProblem('payload_too_large', `The body is larger than ${limit}.`);
      }
      if (error.status === 415)
        throw new HttpProblem(
          'unsupported_media_type',
          'The body encoding or charset is not supported; send UTF-8 JSON.',
        );
      throw new HttpProblem('invalid_body', 'The body is not valid JSON (an object or an array is expected).');
    },
  });
  return async (ctx, next) => {
    if (hasBody(ctx.req.headers) && !ctx.request.is('application/json', '+json')) {
      throw new HttpProblem('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.', {
        extensions: { accepted: ['application/json'] },
      });
    }
    await parse(ctx, async () => {
      if (depthOf(ctx.request.body) > MAX_BODY_DEPTH) {
        throw new HttpProblem('invalid_body', `The body is nested deeper than ${MAX_BODY_DEPTH} levels.`);
      }
      await next();
    });
  };
}

/** How deep arrays and objects nest in a parsed body, walked without recursion; stops counting past the limit. */
function depthOf(body: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[body, 1]];
  while (stack.length > 0 && deepest <= MAX_BODY_DEPTH) {
    const [value, depth] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(value)) stack.push([child, depth + 1]);
  }
  return deepest;
}

function hasBody(headers: Record<string, string | string[] | undefined>): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
