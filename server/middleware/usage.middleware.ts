import type { Middleware } from 'koa';
import type { Principal } from '../../data/keys/key.service.js';
import type { UsageCounter } from '../../data/usage/usage-counter.js';

/**
 * Counts every authenticated request (any status, 429s and 404s included) by
 * account, key, operation and status class, in memory (`UsageCounter` writes
 * them in batches). Mounted outside the problem middleware, so it sees the
 * status of an error response too; requests without a valid key are not counted.
 */
export function usageMiddleware(counter: UsageCounter): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      const principal = ctx.state['principal'] as Principal | undefined;
      const operation = (ctx as unknown as { _matchedRouteName?: unknown })._matchedRouteName;
      if (principal && typeof operation === 'string') {
        counter.record({
          accountId: principal.accountId,
          keyId: principal.keyId,
          operation,
          status: ctx.status,
          at: Date.now(),
        });
      }
    }
  };
}
