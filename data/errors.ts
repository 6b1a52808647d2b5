/**
 * Domain errors: what went wrong in the product's terms, never in HTTP's. Services
 * and query modules throw these; the server's one error middleware maps each
 * `code` to a status and writes the problem+json body (server/http/error-catalogue.ts).
 */

/** Every error code of docs/errors.md. */
export const ERROR_CODES = [
  'invalid_parameter',
  'invalid_body',
  'unauthorized',
  'plan_required',
  'insufficient_scope',
  'not_found',
  'creator_not_found',
  'method_not_allowed',
  'ambiguous_handle',
  'conflict',
  'idempotency_key_reused',
  'follower_sample_missing',
  'payload_too_large',
  'unsupported_media_type',
  'limit_exceeded',
  'rate_limited',
  'internal',
  'unavailable',
  'gone',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** One offending input: a query/path parameter (`param`) or a body field (`field`, a dotted path). */
export interface FieldError {
  param?: string;
  field?: string;
  message: string;
}

export interface DomainErrorOptions {
  /** Per-parameter or per-field problems, listed in the body's `errors`. */
  errors?: FieldError[];
  /** Extra problem members (e.g. `platforms` for `ambiguous_handle`); snake_case keys. */
  extensions?: Record<string, unknown>;
  /** Response headers the caller needs (e.g. `Allow`, `Retry-After`). */
  headers?: Record<string, string>;
  cause?: unknown;
}

/** Base class: a code from the catalogue and a message that says what to fix. */
export class DomainError extends Error {
  readonly errors: FieldError[];
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(
    readonly code: ErrorCode,
    detail: string,
    options: DomainErrorOptions = {},
  ) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.errors = options.errors ?? [];
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }
}

/**
 * A domain error class for a code whose message is all the thrower gives, the way
 * Fastify's `createError` makes its errors (without the HTTP status, which the
 * catalogue holds): `new NotFoundError('no list lst_1')`.
 */
function codedError(code: ErrorCode, name: string) {
  return class extends DomainError {
    override name = name;
    constructor(detail: string, options?: DomainErrorOptions) {
      super(code, detail, options);
    }
  };
}

/** Something the caller named does not exist (or is not theirs: never leak that it exists). */
export const NotFoundError = codedError('not_found', 'NotFoundError');
export type NotFoundError = InstanceType<typeof NotFoundError>;

/** No creator with that handle (on that platform). */
export class CreatorNotFoundError extends DomainError {
  override name = 'CreatorNotFoundError';
  constructor(handle: string, platform?: string | null) {
    super('creator_not_found', platform ? `no creator ${handle} on ${platform}` : `no creator ${handle}`);
  }
}

/** A handle exists on several platforms and none was given. */
export class AmbiguousHandleError extends DomainError {
  override name = 'AmbiguousHandleError';
  constructor(
    handle: string,
    readonly platforms: string[],
  ) {
    super('ambiguous_handle', `${handle} exists on ${platforms.join(', ')}; add platform=… to choose one`, {
      extensions: { platforms },
    });
  }
}

/** The request conflicts with the resource's current state (a duplicate name, an export not ready, …). */
export const ConflictError = codedError('conflict', 'ConflictError');
export type ConflictError = InstanceType<typeof ConflictError>;

/** A plan limit (export rows, webhook count, list size) would be exceeded. */
export class LimitExceededError extends DomainError {
  override name = 'LimitExceededError';
  constructor(
    detail: string,
    readonly limit?: { name: string; value: number | null },
  ) {
    super('limit_exceeded', detail, limit ? { extensions: { limit: limit.name, limit_value: limit.value } } : {});
  }
}

/**
 * Input that breaks a rule. `in: 'query'` (parameters, path, headers) gives
 * `invalid_parameter`; `in: 'body'` gives `invalid_body`.
 */
export class ValidationError extends DomainError {
  override name = 'ValidationError';
  constructor(detail: string, errors: FieldError[], where: 'query' | 'body' = 'query') {
    super(where === 'body' ? 'invalid_body' : 'invalid_parameter', detail, { errors });
  }

  /** One bad query/path parameter. */
  static param(param: string, message: string): ValidationError {
    return new ValidationError(`${param}: ${message}`, [{ param, message }]);
  }

  /** One bad body field (dotted path). */
  static field(field: string, message: string): ValidationError {
    return new ValidationError(`${field}: ${message}`, [{ field, message }], 'body');
  }
}

/** The resource existed but is gone for good (an expired export's file). */
export const GoneError = codedError('gone', 'GoneError');
export type GoneError = InstanceType<typeof GoneError>;

/** A dependency (the store, a destination) cannot serve right now; retrying later may work. */
export const UnavailableError = codedError('unavailable', 'UnavailableError');
export type UnavailableError = InstanceType<typeof UnavailableError>;
