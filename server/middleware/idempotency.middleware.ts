import { createHash } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import { DomainError, ValidationError } from '../../data/errors.js';
import type { StateDb } from '../../data/state/state-db.js';
import { findLive, save } from '../http/idempotency.queries.js';
import { principalOf } from './auth.middleware.js';

/** How long a key replays its first response. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
const SANE_KEY = /^[\x21-\x7e]{1,255}$/;
/** Response headers worth replaying (`cache-control`: a replayed secret is as uncacheable as the first answer). */
const REPLAYED_HEADERS = ['location', 'content-type', 'cache-control'];

/**
 * `Idempotency-Key` on creating POSTs: the same key and body within 24 h replays
 * the first response (with `Idempotent-Replayed: true`); the same key with a
 * different request is a 422 `idempotency_key_reused`. Requests with the same key
 * in flight at once run one after the other. Responses ≥ 500 are not kept, so a
 * retry after a failure runs again. A body member the handler names with
 * `secretsNotReplayed` is never kept: the replay answers it `null` with
 * `secret_redacted: true`. Place after auth and body parsing.
 */
export function idempotencyMiddleware(state: StateDb, now: () => number = Date.now): Middleware {
  const inFlight = new Map<string, Promise<void>>();
  return async (ctx, next) => {
    const key = ctx.get('Idempotency-Key');
    if (!key) return next();
    if (!SANE_KEY.test(key)) throw ValidationError.param('Idempotency-Key', 'must be 1–255 printable ASCII characters');
    const accountId = principalOf(ctx).accountId;
    const lockKey = `${accountId}\n${key}`;
    while (inFlight.has(lockKey)) await inFlight.get(lockKey)!.catch(() => undefined);
    const done = handle(ctx, next, { state, accountId, key, now });
    inFlight.set(lockKey, done);
    try {
      await done;
    } finally {
      inFlight.delete(lockKey);
    }
  };
}

async function handle(
  ctx: Context,
  next: () => Promise<unknown>,
  o: { state: StateDb; accountId: string; key: string; now: () => number },
): Promise<void> {
  const bodyHash = hashRequest(ctx);
  const previous = await findLive(o.state, o.accountId, o.key, o.now() - IDEMPOTENCY_TTL_MS);
  if (previous) {
    if (previous.body_hash !== bodyHash || previous.method !== ctx.method || previous.path !== ctx.path) {
      throw new DomainError(
        'idempotency_key_reused',
        'This Idempotency-Key was used with a different request in the last 24 hours; use a new key for a new request.',
      );
    }
    ctx.status = previous.status_code;
    ctx.set(JSON.parse(previous.response_headers ?? '{}') as Record<string, string>);
    ctx.set('Idempotent-Replayed', 'true');
    ctx.body = previous.response_body ?? null;
    return;
  }
  await next();
  if (ctx.status >= 500) return;
  const body = serialise(withoutSecrets(ctx.body, secretFieldsOf(ctx)));
  if (body === undefined) return;
  const headers: Record<string, string> = {};
  for (const name of REPLAYED_HEADERS) {
    const value = ctx.response.get(name);
    if (value) headers[name] = value;
  }
  await save(o.state, {
    account_id: o.accountId,
    key: o.key,
    method: ctx.method,
    path: ctx.path,
    body_hash: bodyHash,
    status: ctx.status,
    body,
    headers,
    now: o.now(),
  });
}

const SECRET_FIELDS = Symbol('idempotency secret fields');

/**
 * Names the members of this response that carry a secret (webhook create: `secret`).
 * The secret is shown once: the stored response, and so every replay within 24 h,
 * has them `null` and `secret_redacted: true`, whatever happened to the resource since.
 */
export function secretsNotReplayed(ctx: Context, fields: readonly string[]): void {
  (ctx.state as Record<symbol, readonly string[]>)[SECRET_FIELDS] = fields;
}

function secretFieldsOf(ctx: Context): readonly string[] {
  return (ctx.state as Record<symbol, readonly string[] | undefined>)[SECRET_FIELDS] ?? [];
}

function withoutSecrets(body: unknown, fields: readonly string[]): unknown {
  if (fields.length === 0 || body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const field of fields) if (field in out) out[field] = null;
  return { ...out, secret_redacted: true };
}

/** Bodies we can keep: JSON values and strings (streams are never replayed). */
function serialise(body: unknown): string | null | undefined {
  if (body === null || body === undefined) return null;
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body) || typeof (body as { pipe?: unknown }).pipe === 'function') return undefined;
  return JSON.stringify(body);
}

function hashRequest(ctx: Context): string {
  const body = (ctx.request as { body?: unknown }).body ?? null;
  return createHash('sha256')
    .update(`${ctx.method} ${ctx.path}\n${stableJson(body)}`)
    .digest('hex');
}

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same request. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
