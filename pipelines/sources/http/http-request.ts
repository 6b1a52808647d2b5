import { setTimeout as sleep } from 'node:timers/promises';
import { parseRetryAfterMs, withRetry, type BackoffPolicy } from '../../../core/retry-policy.js';
import { TransientSourceError } from '../../engine/errors.js';

/** A remote source refused the request for good (4xx other than 429, a malformed page, a mapping that does not fit). */
export class TerminalSourceError extends Error {
  override name = 'TerminalSourceError';
}

/** Spaces the requests of one source so they stay under its own rate limit (requests per second). */
export class Pacer {
  private next = 0;
  constructor(private readonly requestsPerSecond: number | null) {}

  /** Waits until the next request may go. */
  async turn(): Promise<void> {
    if (!this.requestsPerSecond) return;
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + 1000 / this.requestsPerSecond;
    if (at > now) await sleep(at - now);
  }
}

export interface RequestOptions {
  retry: BackoffPolicy;
  timeoutMs: number;
  headers?: Record<string, string>;
  pacer?: Pacer;
  /** Removes secrets from a message before it is thrown (an error may end up in a run record). */
  redact?: (text: string) => string;
  /** Told of each retry (the source logs it). */
  onRetry?: (reason: string, attempt: number, delayMs: number) => void;
  /**
   * The source's URL rules (scheme, the hosts plain http may reach): applied to every
   * URL requested — the first, each redirect hop, each next page — before it is fetched.
   * Answers what is wrong, or null.
   */
  checkUrl?: (url: URL) => string | null;
}

/** A URL as it may appear in messages and run records: no query string, which may carry an API key. */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** One failed try, classified for the retry loop. */
class AttemptFailure extends Error {
  override name = 'AttemptFailure';
  constructor(
    readonly transient: boolean,
    readonly retryAfterMs: number | null,
    message: string,
  ) {
    super(message);
  }
}

/**
 * One GET with the shared retry policy: timeouts, network errors, 429 and 5xx
 * are retried with backoff (never sooner than `Retry-After`); any other non-2xx
 * answer stops at once. Answers the successful response; throws
 * `TerminalSourceError` or, past the last try, `TransientSourceError`.
 */
export async function getWithRetry(url: URL, o: RequestOptions): Promise<Response> {
  const redact = o.redact ?? ((s: string) => s);
  let tries = 0;
  try {
    return await withRetry(
      async () => {
        tries++;
        await o.pacer?.turn();
        return send(url, o);
      },
      classify,
      o.retry,
      (f, attempt, delay) => o.onRetry?.(redact(f.message), attempt, delay),
    );
  } catch (error) {
    const f = error as AttemptFailure;
    if (!f.transient) throw new TerminalSourceError(redact(f.message));
    throw new TransientSourceError(redact(`${describeUrl(url)} failed ${tries} times (last: ${f.message})`));
  }
}

/** Redirects followed for one request, at most. */
const MAX_REDIRECTS = 5;

/**
 * One request. A request that carries headers of the source's (an API key, a
 * token) follows redirects only within the source's origin: fetch's own
 * `follow` would send most of them to any host a redirect names. One without
 * (a public remote file, which CDNs often redirect) follows them anywhere the
 * source's URL rules allow: every hop is checked as the first URL was.
 */
async function send(url: URL, o: RequestOptions): Promise<Response> {
  let at = url;
  for (let hop = 0; ; hop++) {
    const refused = o.checkUrl?.(at) ?? null;
    if (refused) {
      const how = hop === 0 ? '' : `${describeUrl(url)} redirected to ${describeUrl(at)}, `;
      throw new AttemptFailure(false, null, `${how}refused: ${refused}`);
    }
    const res = await fetch(at, {
      signal: AbortSignal.timeout(o.timeoutMs),
      headers: { accept: 'application/json', ...o.headers },
      redirect: 'manual',
    });
    const location = res.status >= 300 && res.status < 400 && res.status !== 304 ? res.headers.get('location') : null;
    if (location === null) return checked(res, url);
    await res.body?.cancel();
    const next = new URL(location, at);
    if (next.origin !== url.origin && Object.keys(o.headers ?? {}).length > 0) {
      throw new AttemptFailure(
        false,
        null,
        `${describeUrl(at)} redirected to another origin (${next.origin}): refused, the request carries the source's credentials`,
      );
    }
    if (hop === MAX_REDIRECTS)
      throw new AttemptFailure(false, null, `${describeUrl(url)} redirected more than ${MAX_REDIRECTS} times`);
    at = next;
  }
}

async function checked(res: Response, url: URL): Promise<Response> {
  if (res.ok || res.status === 304) return res;
  await res.body?.cancel();
  const retryable = res.status === 429 || res.status >= 500;
  throw new AttemptFailure(
    retryable,
    retryable ? parseRetryAfterMs(res.headers.get('retry-after')) : null,
    retryable ? `answered ${res.status}` : `${describeUrl(url)} answered ${res.status}`,
  );
}

function classify(error: unknown): AttemptFailure {
  if (error instanceof AttemptFailure) return error;
  // fetch rejects on timeouts and network errors: worth another try
  return new AttemptFailure(true, null, error instanceof Error ? causeOf(error) : String(error));
}

/** undici's "fetch failed" hides the reason in `cause` (ECONNREFUSED, a reset socket). */
function causeOf(error: Error): string {
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}
