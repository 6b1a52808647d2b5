import type { Middleware } from 'koa';
import { newId } from '../../data/ids.js';

/** What we accept as a caller's request id: short, printable, no spaces. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id (the caller's X-Request-Id when sane) and echoes it on the response. */
export function requestIdMiddleware(): Middleware {
  return async (ctx, next) => {
    const given = ctx.get('X-Request-Id');
    const id = SANE_REQUEST_ID.test(given) ? given : newId('req');
    ctx.state['requestId'] = id;
    ctx.set('X-Request-Id', id);
    await next();
  };
}
