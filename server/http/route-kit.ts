import type Router from '@koa/router';
import type { Config } from '../../config/config.js';
import type { CreatorSearchService } from '../../data/creators/creator-search.service.js';
import type { Logger } from '../../config/logger.js';
import type { PlanCatalogue } from '../../data/plans/plan.service.js';
import type { PingResult, StateDb } from '../../data/state/state-db.js';
import type { Store } from '../../data/store.js';
import type { HttpMetrics } from '../middleware/metrics.middleware.js';
import type { OpenApiRegistry } from '../openapi/registry.js';
import type { CursorCodec } from './cursor.js';
import type { RateLimiter } from './rate-limiter.js';
import type { Middleware } from 'koa';

/** What one part of the app says about readiness (`GET /readyz`). */
export interface ReadinessReport {
  ready: boolean;
  /** Why not ready (the 503's detail), or what a ready answer should add to its body. */
  reason?: string;
  note?: Record<string, string>;
}

/** A readiness check: answers within about `waitMs`. */
export type ReadinessCheck = (waitMs: number) => Promise<ReadinessReport>;

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
  tuning: { searchCacheTtlMs: number; searchIndex: boolean; prepareLookalikes: boolean };
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
  /** Registers a readiness check of a routes module (the search index's); `/readyz` runs them all. */
  addReadinessCheck(check: ReadinessCheck): void;
  /** The checks registered so far. */
  readonly readinessChecks: readonly ReadinessCheck[];
  /** The process's last probe of the shared state, when it runs one (cluster mode); null: `/readyz` probes itself. */
  stateStatus: (() => PingResult) | null;
  /** The app's one creator search service (server/http/creator-search.ts), made at the first call. */
  creatorSearch(): CreatorSearchService;
  /** Registers background work started by a request (e.g. a cache rebuild) so shutdown can wait for it. */
  track(work: Promise<unknown>): void;
}

/** A routes module: builds one router from the kit (see server/README.md). */
export type RoutesFactory = (kit: RouteKit) => Router;
