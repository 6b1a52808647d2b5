import type { Middleware } from 'koa';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** The app's Prometheus registry and the HTTP instruments on it (one per app, so tests never collide). */
export interface HttpMetrics {
  registry: Registry;
  requests: Counter<'method' | 'route' | 'status'>;
  duration: Histogram<'method' | 'route'>;
}

export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'cds_' });
  const requests = new Counter({
    name: 'cds_http_requests_total',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'cds_http_request_duration_seconds',
    help: 'HTTP request latency by method and route template',
    labelNames: ['method', 'route'] as const,
    registers: [registry],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  });
  return { registry, requests, duration };
}

/**
 * Route label = the router's path template (`/v1/creators/:handle`), never the raw
 * path, so label cardinality stays bounded; unmatched requests share one label.
 */
export function routeLabel(ctx: { _matchedRoute?: unknown }): string {
  return typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : 'unmatched';
}

/** Counts and times every request (the access-log line is `access-log.middleware.ts`'s job). */
export function metricsMiddleware(metrics: HttpMetrics): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeLabel(ctx as unknown as { _matchedRoute?: unknown });
      metrics.requests.inc({ method: ctx.method, route, status: String(ctx.status) });
      metrics.duration.observe({ method: ctx.method, route }, seconds);
    }
  };
}
