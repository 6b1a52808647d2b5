import type { Context, Middleware, Next } from 'koa';
import type { Scope } from '../../data/plans/plans.js';
import type { Principal } from '../../data/keys/key.service.js';
import type { PlanCatalogue, PlanRecord } from '../../data/plans/plan.service.js';
import { HttpProblem } from '../http/error-catalogue.js';
import type { PrincipalCache } from '../http/principal-cache.js';
import type { RateLimiter, RateLimitState } from '../http/rate-limiter.js';

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The authenticated caller of the current request; only call after `authMiddleware`. */
export function principalOf(ctx: Context): Principal {
  const principal = ctx.state['principal'] as Principal | undefined;
  if (!principal) throw new Error('principalOf called on an unauthenticated route');
  return principal;
}

/**
 * Bearer key → principal (through `PrincipalCache`: revocation, rotation and
 * plan changes take effect at once in this process, within a second in others).
 * The key's scopes are cut to those its account's plan allows (the `plans`
 * table); a plan that allows none (`free`) is 403 `plan_required`. 401 with
 * `WWW-Authenticate` for a missing, unknown, revoked or expired key. Failed
 * authentications are counted per client address (`failures`): past the limit a
 * client gets a 429 with `Retry-After` before any key is looked up, so guessing
 * keys neither works nor slows everyone else down.
 */
export function authMiddleware(
  principals: PrincipalCache,
  plans: PlanCatalogue,
  failures?: AuthFailureLimit,
): Middleware {
  return async (ctx, next) => {
    const client = `auth-failures:${ctx.ip}`;
    if (failures) await refuseWhileThrottled(failures, client);
    const principal = await authenticateHeader(principals, ctx.get('Authorization')).catch(async (error: unknown) => {
      if (failures && error instanceof HttpProblem) await failures.limiter.consume(client, failures.perMinute);
      throw error;
    });
    const plan = await plans.get(principal.plan);
    if (!plan || plan.scopes.length === 0) {
      throw new HttpProblem(
        'plan_required',
        `The ${principal.plan} plan has no API access; ask for the account to be moved to a paid plan (entry or enterprise).`,
      );
    }
    ctx.state['principal'] = withPlanScopes(principal, plan);
    ctx.state['planScopes'] = plan.scopes;
    await next();
  };
}

/** How many failed authentications a client address may make per minute, counted in the (shared) rate limiter. */
export interface AuthFailureLimit {
  limiter: RateLimiter;
  perMinute: number;
}

async function refuseWhileThrottled(failures: AuthFailureLimit, client: string): Promise<void> {
  const state = await failures.limiter.peek(client, failures.perMinute);
  if (state.remaining > 0) return;
  throw new HttpProblem(
    'rate_limited',
    `Too many failed authentications from this address (${failures.perMinute} per minute); ` +
      `retry in ${state.resetSeconds} s with a valid key.`,
    { headers: { ...rateLimitHeaders(state), 'Retry-After': String(state.resetSeconds) } },
  );
}

async function authenticateHeader(principals: PrincipalCache, header: string): Promise<Principal> {
  if (!header) throw unauthorized('Send your API key as Authorization: Bearer <key>.', false);
  const presented = BEARER.exec(header)?.[1];
  if (!presented) throw unauthorized('The Authorization header must be "Bearer <key>".', true);
  const principal = await principals.authenticate(presented);
  if (!principal) throw unauthorized('The API key is unknown, revoked or expired.', true);
  return principal;
}

/** The principal with only the scopes both its key and its plan allow. */
function withPlanScopes(principal: Principal, plan: PlanRecord): Principal {
  if ([...principal.scopes].every((s) => plan.scopes.includes(s))) return principal;
  return { ...principal, scopes: new Set([...principal.scopes].filter((s) => plan.scopes.includes(s))) };
}

function unauthorized(detail: string, invalidToken: boolean): HttpProblem {
  const challenge = invalidToken ? 'Bearer realm="cds", error="invalid_token"' : 'Bearer realm="cds"';
  return new HttpProblem('unauthorized', detail, { headers: { 'WWW-Authenticate': challenge } });
}

/**
 * 403 `insufficient_scope` unless the key carries `scope`. When the account's
 * plan is what withholds it, the detail says so: a new key would not help.
 */
export function requireScope(scope: Scope): Middleware {
  return async (ctx: Context, next: Next) => {
    const principal = principalOf(ctx);
    if (!principal.scopes.has(scope)) {
      const planScopes = ctx.state['planScopes'] as readonly string[] | undefined;
      const detail =
        planScopes && !planScopes.includes(scope)
          ? `The ${principal.plan} plan does not include the "${scope}" scope; ask for the account to be moved to a plan that does.`
          : `This key lacks the "${scope}" scope; create a key with it.`;
      throw new HttpProblem('insufficient_scope', detail, { extensions: { required_scope: scope } });
    }
    await next();
  };
}

/**
 * The IETF RateLimit header fields for a rate-limit state: `q` requests per `w`
 * seconds; `r` requests that would pass now, `t` seconds until the allowance is
 * full again, or (with `r=0`) until the next request passes (see `RateLimitState`).
 */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  return {
    'RateLimit-Policy': `"minute";q=${state.limit};w=${state.windowSeconds}`,
    RateLimit: `"minute";r=${state.remaining};t=${state.resetSeconds}`,
  };
}

/** Counts the request against the account's plan limit; headers on every response, 429 (Retry-After: until one passes) over it. */
export function rateLimitMiddleware(limiter: RateLimiter, plans: PlanCatalogue): Middleware {
  return async (ctx, next) => {
    const principal = principalOf(ctx);
    const limit = (await plans.limits(principal.plan)).requestsPerMinute;
    const state = await limiter.consume(principal.accountId, limit);
    const headers = rateLimitHeaders(state);
    ctx.set(headers);
    if (!state.allowed) {
      throw new HttpProblem(
        'rate_limited',
        `The ${principal.plan} plan allows ${limit} requests per minute; retry in ${state.resetSeconds} s.`,
        { headers: { ...headers, 'Retry-After': String(state.resetSeconds) } },
      );
    }
    await next();
  };
}
