import type Router from '@koa/router';
import type { Config } from '../../config/config.js';
import type { Logger } from '../../config/logger.js';
import type { PlanCatalogue } from '../../data/plans/plan.service.js';
import type { StateDb } from '../../data/state/state-db.js';
import type { Store } from '../../data/store.js';
import type { HttpMetrics } from '../middleware/metrics.middleware.js';
import type { OpenApiRegistry } from '../openapi/registry.js';
import type { CursorCodec } from './cursor.js';
import type { RateLimiter } from './rate-limiter.js';
import type { Middleware } from 'koa';

/** What every routes module is given to build its router. */
export interface RouteKit {
  /** The analytical store (read by the API): creators, audience, history, posts, campaigns. */
  store: Store;
  /** The service state: the store itself in the embedded default, PostgreSQL in cluster mode. */
  state: StateDb;
  config: Readonly<Config>;
  logger: Logger;
  openapi: OpenApiRegistry;
  cursors: CursorCodec;
  rateLimiter: RateLimiter;
  /** The one way to read plan limits and scopes (the `plans` table, cached for a second). */
  plans: PlanCatalogue;
  metrics: HttpMetrics;
  /** Performance knobs (from AppDeps). */
  tuning: { searchCacheTtlMs: number; searchIndex: boolean };
  /** Shared per-app middleware `defineRoute` composes (auth, rate limit, body, idempotency). */
  middleware: {
    auth: Middleware;
    rateLimit: Middleware;
    jsonBody: Middleware;
    idempotency: Middleware;
  };
  /** Drops cached search totals etc.; call after writing creator data from a request. */
  invalidateCaches(): void;
  /** Called with an invalidation hook: routes that cache register theirs here. */
  onInvalidate(hook: () => void): void;
  /** Registers background work started by a request (e.g. a cache rebuild) so shutdown can wait for it. */
  track(work: Promise<unknown>): void;
}

/** A routes module: builds one router from the kit (see server/README.md). */
export type RoutesFactory = (kit: RouteKit) => Router;
