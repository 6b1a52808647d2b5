import { createHash, timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { HttpProblem } from './error-catalogue.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/**
 * Refuses a `/metrics` scrape without `Authorization: Bearer <CDS_METRICS_TOKEN>`
 * (401 problem); a null token leaves the endpoint open. The comparison takes the
 * same time whatever the guess: both sides are hashed to one length first.
 */
export function requireMetricsToken(ctx: Context, token: string | null): void {
  if (token === null) return;
  const presented = BEARER.exec(ctx.get('Authorization'))?.[1];
  if (presented !== undefined && sameSecret(presented, token)) return;
  throw new HttpProblem(
    'unauthorized',
    'This server protects /metrics: send Authorization: Bearer <the CDS_METRICS_TOKEN it was started with>.',
    {
      headers: {
        'WWW-Authenticate':
          presented === undefined ? 'Bearer realm="metrics"' : 'Bearer realm="metrics", error="invalid_token"',
      },
    },
  );
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
