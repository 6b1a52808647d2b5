import { DomainError, ERROR_CODES, type DomainErrorOptions, type ErrorCode } from '../../data/errors.js';

export { ERROR_CODES, type ErrorCode };

export interface CatalogueEntry {
  status: number;
  title: string;
  /** When it happens (docs/errors.md repeats this; a test keeps them in step). */
  when: string;
}

/** Where each code's `type` URI points: the error table in the docs. */
export const ERROR_TYPE_BASE = 'https://docs.creator-data.dev/errors/';

/** The one catalogue: code → status, title. */
export const ERROR_CATALOGUE: Readonly<Record<ErrorCode, CatalogueEntry>> = Object.freeze({
  invalid_parameter: {
    status: 400,
    title: 'Invalid parameter',
    when: 'a query, path or header parameter is unknown, malformed or out of range, or a cursor is forged or foreign',
  },
  invalid_body: {
    status: 400,
    title: 'Invalid body',
    when: 'the JSON body is malformed, has unknown fields, or a field breaks a rule',
  },
  unauthorized: {
    status: 401,
    title: 'Unauthorized',
    when: 'the API key (on /metrics, the metrics token) is missing, malformed, unknown, revoked or expired',
  },
  plan_required: {
    status: 403,
    title: 'Plan required',
    when: 'the account is on the free plan, which has no API access',
  },
  insufficient_scope: { status: 403, title: 'Insufficient scope', when: 'the key lacks the scope the endpoint needs' },
  not_found: { status: 404, title: 'Not found', when: 'no such route, or no such resource in your account' },
  creator_not_found: { status: 404, title: 'Creator not found', when: 'no creator has that handle (on that platform)' },
  method_not_allowed: { status: 405, title: 'Method not allowed', when: 'the route exists but not with this method' },
  ambiguous_handle: {
    status: 409,
    title: 'Ambiguous handle',
    when: 'the handle exists on several platforms and no platform was given',
  },
  conflict: { status: 409, title: 'Conflict', when: 'the request conflicts with the current state of the resource' },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency key reused',
    when: 'an Idempotency-Key was reused with a different request within 24 hours',
  },
  follower_sample_missing: {
    status: 422,
    title: 'Follower sample missing',
    when: 'an audience overlap names a creator with no follower sample on record',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    when: 'the request body is larger than the configured limit',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    when: 'a request body was sent that is not application/json',
  },
  limit_exceeded: { status: 403, title: 'Plan limit exceeded', when: 'the request would exceed a limit of your plan' },
  rate_limited: {
    status: 429,
    title: 'Rate limited',
    when: 'the account sent requests faster than the per-minute limit of its plan allows',
  },
  internal: { status: 500, title: 'Internal error', when: 'an unexpected failure on our side' },
  unavailable: {
    status: 503,
    title: 'Service unavailable',
    when: 'the store or a dependency is temporarily unavailable',
  },
  gone: { status: 410, title: 'Gone', when: 'the resource existed but is gone for good, such as an expired export' },
});

/**
 * An error raised by the HTTP layer itself (auth, rate limit, routing, body
 * parsing). Domain code throws the `data/errors.ts` classes instead.
 */
export class HttpProblem extends DomainError {
  override name = 'HttpProblem';
  constructor(code: ErrorCode, detail: string, options?: DomainErrorOptions) {
    super(code, detail, options);
  }
}
