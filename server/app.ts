import type Router from '@koa/router';
import Koa from 'koa';
import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import type { PingResult, StateDb } from '../data/state/state-db.js';
import type { Store } from '../data/store.js';
import { PlanCatalogue } from '../data/plans/plan.service.js';
import { UsageCounter, USAGE_FLUSH_MS } from '../data/usage/usage-counter.js';
import type { CreatorSearchService } from '../data/creators/creator-search.service.js';
import { newCreatorSearch } from './http/creator-search.js';
import { CursorCodec } from './http/cursor.js';
import { PrincipalCache } from './http/principal-cache.js';
import { PgRateLimiter } from './http/pg-rate-limiter.js';
import { MemoryRateLimiter, type RateLimiter } from './http/rate-limiter.js';
import type { ReadinessCheck, RouteKit, RoutesFactory } from './http/route-kit.js';
import { accessLogMiddleware } from './middleware/access-log.middleware.js';
import { authMiddleware, rateLimitMiddleware } from './middleware/auth.middleware.js';
import { jsonBodyMiddleware } from './middleware/body.middleware.js';
import { idempotencyMiddleware } from './middleware/idempotency.middleware.js';
import { createHttpMetrics, metricsMiddleware } from './middleware/metrics.middleware.js';
import { problemMiddleware } from './middleware/problem.middleware.js';
import { requestIdMiddleware } from './middleware/request-id.middleware.js';
import { usageMiddleware } from './middleware/usage.middleware.js';
import { routingFallbackMiddleware, securityHeadersMiddleware } from './middleware/routing.middleware.js';
import { OpenApiRegistry } from './openapi/registry.js';
import { ROUTES } from './routes/index.js';

/** What the app needs from the process that starts it. */
export interface AppDeps {
  /** The analytical store the API reads (creators, audience, history, posts, campaigns, scores). */
  store: Store;
  /** The service state (accounts, keys, lists, webhooks, exports…); the store itself when omitted (embedded default). */
  state?: StateDb;
  config: Readonly<Config>;
  logger: Logger;
  /** Per-account request counting; by default in memory (one process), or in PostgreSQL when the state is there. */
  rateLimiter?: RateLimiter;
  /** How long search totals and pages stay cached; 0 turns the cache off (benchmarks of the bare path). */
  searchCacheTtlMs?: number;
  /** Answer searches from the in-memory search index when it is current (default true; the bench turns it off to compare). */
  searchIndex?: boolean;
  /**
   * Prepare the lookalike vectors as soon as the search index is in place (default true); false leaves them
   * to the first lookalike request (a process that must stay small: the search-scale bench at 10M creators).
   */
  prepareLookalikes?: boolean;
  /** Routers mounted after the standard ones (tests mount probes here). */
  extraRoutes?: readonly RoutesFactory[];
  /** Plan limits and scopes; by default read from the state's `plans` table (tests layer overrides on it). */
  plans?: PlanCatalogue;
  /** How often request counts are written to `api_usage` (default 10 s). */
  usageFlushMs?: number;
  /**
   * The last outcome of the process's own probe of the shared state (cluster mode's state watch):
   * `/readyz` answers from it at once instead of probing PostgreSQL on every health check.
   */
  stateStatus?: () => PingResult;
  /** The clock (ms since the epoch) key expiry and the keys recheck interval are read against; `Date.now` by default (tests move it). */
  now?: () => number;
}

/** The Koa app plus the pieces tests and `main.ts` may want to reach. */
export interface CdsApp extends Koa {
  /** Every mounted router (the OpenAPI coverage test walks their layers). */
  routers: readonly Router[];
  /** Resolves when background work started by requests has finished and request counts are written; call before closing the store. */
  settle(): Promise<void>;
  /** Writes the request counts held in memory to `api_usage` now (tests; `settle` does it too). */
  flushUsage(): Promise<void>;
}

/** Builds the Koa app; it never listens and never reads the environment. */
export function createApp(deps: AppDeps): CdsApp {
  const background = new Set<Promise<unknown>>();
  const kit = buildKit(deps, background);
  const usage = new UsageCounter(kit.state, (error) =>
    deps.logger.warn({ err: error }, 'API usage flush failed; the counts are kept for the next one'),
  );
  usage.start(deps.usageFlushMs ?? USAGE_FLUSH_MS);
  const app = new Koa() as CdsApp;
  app.settle = async () => {
    while (background.size > 0) await Promise.allSettled([...background]);
    await usage.flush();
  };
  app.flushUsage = () => usage.flush();
  // behind a reverse proxy (CDS_TRUST_PROXY) ctx.ip is the client's, from X-Forwarded-For, for the failed-authentication limit
  app.proxy = deps.config.trustProxy;
  const routers = [...ROUTES, ...(deps.extraRoutes ?? [])].map((factory) => factory(kit));
  app.routers = routers;
  app.use(requestIdMiddleware());
  app.use(accessLogMiddleware(deps.logger));
  app.use(metricsMiddleware(kit.metrics));
  app.use(usageMiddleware(usage));
  app.use(problemMiddleware(deps.logger));
  app.use(securityHeadersMiddleware(deps.config.tls !== null));
  app.use(routingFallbackMiddleware(routers));
  for (const router of routers) app.use(router.routes());
  // Koa's default handler would write plain-text errors; ours are all caught above.
  app.silent = true;
  return app;
}

function buildKit(deps: AppDeps, background: Set<Promise<unknown>>): RouteKit {
  const hooks: Array<() => void> = [];
  const readinessChecks: ReadinessCheck[] = [];
  const state = deps.state ?? deps.store;
  // cluster mode: every replica counts in PostgreSQL, so an account's limit holds across them all
  const rateLimiter = deps.rateLimiter ?? (state.sql.shared ? new PgRateLimiter(state) : new MemoryRateLimiter());
  const plans = deps.plans ?? new PlanCatalogue(state);
  let search: CreatorSearchService | undefined;
  const kit: RouteKit = {
    creatorSearch: () => {
      search ??= newCreatorSearch(kit);
      return search;
    },
    store: deps.store,
    state,
    config: deps.config,
    logger: deps.logger,
    openapi: new OpenApiRegistry(),
    // Signed with `config.cursorSecret` or the data folder's persisted secret.
    cursors: CursorCodec.fromConfig(deps.config),
    rateLimiter,
    plans,
    metrics: createHttpMetrics(),
    tuning: {
      searchCacheTtlMs: deps.searchCacheTtlMs ?? 60_000,
      searchIndex: deps.searchIndex ?? deps.config.searchIndex,
      prepareLookalikes: deps.prepareLookalikes ?? true,
    },
    middleware: {
      auth: authMiddleware(new PrincipalCache(state, { now: deps.now }), plans, {
        limiter: rateLimiter,
        perMinute: deps.config.authFailuresPerMinute,
      }),
      rateLimit: rateLimitMiddleware(rateLimiter, plans),
      jsonBody: jsonBodyMiddleware(deps.config.bodyLimit),
      idempotency: idempotencyMiddleware(state),
    },
    invalidateCaches: () => {
      for (const hook of hooks) hook();
    },
    onInvalidate: (hook) => hooks.push(hook),
    addReadinessCheck: (check) => readinessChecks.push(check),
    stateStatus: deps.stateStatus ?? null,
    readinessChecks,
    track: (work) => {
      const settled = work
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => background.delete(settled));
      background.add(settled);
    },
  };
  return kit;
}
