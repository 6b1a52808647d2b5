import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { classifyResponse, SsrfBlockedError, WebhookUrlError, type AttemptOutcome } from './errors.js';
import { cachingResolver, checkDestination, type AllowList, type Resolver } from './ssrf-guard.js';

/** One signed POST to make. */
export interface OutboundRequest {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface SendResult {
  outcome: AttemptOutcome;
  latencyMs: number;
}

export interface WebhookClientOptions {
  timeoutMs: number;
  allow: AllowList;
  resolve?: Resolver;
  /** Receivers are trusted to present a valid certificate; tests with a self-signed receiver turn this off. */
  rejectUnauthorized?: boolean;
}

/** Bytes of a receiver's answer we read before dropping the rest; we keep the status and a short excerpt of the body. */
const MAX_RESPONSE_BYTES = 64 * 1024;

/** Characters of a failed answer's body kept in the attempt's error. */
const EXCERPT_CHARS = 200;

/** How long a receiver's DNS answer is reused. */
const DNS_CACHE_MS = 30_000;

/**
 * Sends webhook POSTs over node:http(s) with keep-alive. Each request connects to
 * the address the SSRF guard checked (a fixed `lookup`), never follows redirects,
 * and is aborted whole (connect + answer) after `timeoutMs`.
 */
export class WebhookClient {
  private readonly http = new HttpAgent({ keepAlive: true, maxSockets: 256 });
  private readonly https: HttpsAgent;
  private readonly resolve: Resolver;

  constructor(private readonly options: WebhookClientOptions) {
    this.resolve = options.resolve ?? cachingResolver(DNS_CACHE_MS);
    this.https = new HttpsAgent({
      keepAlive: true,
      maxSockets: 256,
      rejectUnauthorized: options.rejectUnauthorized ?? true,
    });
  }

  async send(req: OutboundRequest): Promise<SendResult> {
    const started = performance.now();
    try {
      const dest = await checkDestination(req.url, this.options.allow, this.resolve);
      const outcome = await this.post(dest.url, fixedLookup(dest.address, dest.family), req);
      return { outcome, latencyMs: performance.now() - started };
    } catch (error) {
      return { outcome: failureOutcome(error), latencyMs: performance.now() - started };
    }
  }

  /** Closes pooled connections. */
  close(): void {
    this.http.destroy();
    this.https.destroy();
  }

  private post(url: URL, lookup: LookupFunction, req: OutboundRequest): Promise<AttemptOutcome> {
    const secure = url.protocol === 'https:';
    const send = secure ? httpsRequest : httpRequest;
    return new Promise<AttemptOutcome>((resolve, reject) => {
      const request = send(
        url,
        {
          method: 'POST',
          agent: secure ? this.https : this.http,
          lookup,
          headers: {
            ...req.headers,
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(req.body),
            'user-agent': 'cds-webhooks/1',
          },
        },
        (res) =>
          drain(res).then(
            (excerpt) =>
              resolve(withExcerpt(classifyResponse(res.statusCode ?? 0, header(res, 'retry-after')), excerpt)),
            reject,
          ),
      );
      const timer = setTimeout(() => request.destroy(new TimeoutError(this.options.timeoutMs)), this.options.timeoutMs);
      request.once('close', () => clearTimeout(timer));
      request.once('error', reject);
      request.end(req.body);
    });
  }
}

class TimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

function header(res: IncomingMessage, name: string): string | undefined {
  const v = res.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** Reads the answer so the keep-alive socket can be reused; keeps its start for the delivery log. */
function drain(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    const kept: Buffer[] = [];
    const done = () => resolve(Buffer.concat(kept).toString('utf8').slice(0, EXCERPT_CHARS));
    res.on('data', (chunk: Buffer) => {
      if (seen < EXCERPT_CHARS * 4) kept.push(chunk);
      seen += chunk.length;
      if (seen > MAX_RESPONSE_BYTES) res.destroy();
    });
    res.once('end', done);
    res.once('close', done);
    res.once('error', reject);
  });
}

/** A failed answer's error names what the receiver said (its first characters), to help whoever reads the log. */
function withExcerpt(outcome: AttemptOutcome, excerpt: string): AttemptOutcome {
  const text = excerpt.replace(/\s+/g, ' ').trim();
  if (outcome.kind === 'success' || outcome.kind === 'terminal' || text.length === 0) return outcome;
  return { ...outcome, error: `${outcome.error}: ${text}` };
}

/** A lookup that always answers the address already checked, so DNS cannot change between check and connect. */
function fixedLookup(address: string, family: 4 | 6): LookupFunction {
  return ((_host: string, opts: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (opts?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;
}

function failureOutcome(error: unknown): AttemptOutcome {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof SsrfBlockedError || error instanceof WebhookUrlError) {
    return { kind: 'terminal', statusCode: null, error: `refused: ${message}` };
  }
  if (error instanceof TimeoutError)
    return { kind: 'transient', statusCode: null, error: `timeout: ${message}`, retryAfterSeconds: null };
  return { kind: 'transient', statusCode: null, error: `network error: ${message}`, retryAfterSeconds: null };
}
