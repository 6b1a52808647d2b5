import { parseRetryAfterSeconds } from '../../core/retry-policy.js';

/**
 * Why a webhook URL or delivery was refused. Domain errors: they know nothing of
 * HTTP status codes; the routes map them.
 */
export class WebhookUrlError extends Error {
  override name = 'WebhookUrlError';
}

/** The destination resolves to an address the SSRF guard refuses (private, loopback, link-local, metadata). */
export class SsrfBlockedError extends WebhookUrlError {
  override name = 'SsrfBlockedError';
}

/** How one delivery attempt ended, as the retry policy needs to know it. */
export type AttemptOutcome =
  | { kind: 'success'; statusCode: number }
  /** Worth retrying: timeouts, network errors, non-2xx answers. `retryAfterSeconds` from a 429/503. */
  | { kind: 'transient'; statusCode: number | null; error: string; retryAfterSeconds: number | null }
  /** 410 Gone: the receiver asks us to stop; the subscription is disabled. */
  | { kind: 'gone'; statusCode: number; error: string }
  /** Refused before sending (SSRF guard, bad URL): retrying cannot help. */
  | { kind: 'terminal'; statusCode: null; error: string };

/**
 * Classifies a receiver's answer. Any non-2xx other than 410 is retried: receivers
 * answer 4xx during deploys and misconfiguration, and the 5-day rule stops a dead endpoint.
 */
export function classifyResponse(statusCode: number, retryAfter: string | undefined, now = Date.now()): AttemptOutcome {
  if (statusCode >= 200 && statusCode < 300) return { kind: 'success', statusCode };
  if (statusCode === 410) return { kind: 'gone', statusCode, error: 'receiver answered 410 Gone' };
  const honoured = statusCode === 429 || statusCode === 503 ? parseRetryAfter(retryAfter, now) : null;
  const error =
    statusCode >= 300 && statusCode < 400
      ? `receiver answered ${statusCode}; redirects are not followed`
      : `receiver answered ${statusCode}`;
  return { kind: 'transient', statusCode, error, retryAfterSeconds: honoured };
}

/** `Retry-After` as seconds from now: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  return parseRetryAfterSeconds(value, now);
}
