/**
 * An account's rate allowance after a request was counted (or looked at).
 * `remaining` and `resetSeconds` are what the IETF `RateLimit` field sends as
 * `r` and `t`; `resetSeconds` is also `Retry-After` on a 429.
 */
export interface RateLimitState {
  allowed: boolean;
  /** Requests the policy allows per window. */
  limit: number;
  /** Requests that would pass if sent now, back to back (never negative): `r`. */
  remaining: number;
  /** Requests the allowance still holds against the account: `limit − remaining`. */
  used: number;
  /**
   * `t`: with requests remaining, whole seconds until the allowance is full
   * again (0 when it already is); with none remaining, whole seconds until the
   * next request passes (≥ 1), the `Retry-After` of a 429.
   */
  resetSeconds: number;
  windowSeconds: number;
}

/**
 * Limits requests per account with GCRA (generic cell rate algorithm): a burst
 * of up to `limit`, then one request per `window / limit`. Unlike fixed windows
 * it never lets `2 × limit` through around a window edge: in any span of L
 * seconds at most `limit + ⌊L · limit / window⌋` pass. The in-memory
 * implementation serves one process; `PgRateLimiter` shares the state of every
 * API replica through PostgreSQL.
 */
export interface RateLimiter {
  readonly windowSeconds: number;
  /** Counts one request for `key` against `limit` per window (when it passes). */
  consume(key: string, limit: number): Promise<RateLimitState>;
  /** The current state without counting. */
  peek(key: string, limit: number): Promise<RateLimitState>;
}

/** A GCRA policy in whole microseconds (integers, so both implementations agree exactly). */
export interface GcraPolicy {
  limit: number;
  windowSeconds: number;
  /** The emission interval: one request's share of the window. */
  intervalUs: number;
  /** How far ahead of now the theoretical arrival time may be for a request to pass: `(limit − 1)` intervals. */
  toleranceUs: number;
}

/** The GCRA policy for `limit` requests per `windowSeconds` (a limit of 0 lets nothing through). */
export function gcraPolicy(limit: number, windowSeconds: number): GcraPolicy {
  const windowUs = windowSeconds * 1_000_000;
  const intervalUs = limit > 0 ? Math.floor(windowUs / limit) : windowUs;
  return { limit, windowSeconds, intervalUs, toleranceUs: (limit - 1) * intervalUs };
}

/**
 * The state seen at `nowUs` when the bucket's theoretical arrival time is
 * `tatUs` (after counting the request, if it passed). Each interval of the TAT
 * ahead of now is one request still held against the account.
 */
export function gcraState(p: GcraPolicy, tatUs: number, nowUs: number, allowed: boolean): RateLimitState {
  const aheadUs = Math.max(0, tatUs - nowUs);
  const used = Math.min(p.limit, Math.ceil(aheadUs / p.intervalUs));
  const remaining = Math.max(0, p.limit - used);
  const resetSeconds =
    remaining > 0 ? Math.ceil(aheadUs / 1_000_000) : Math.max(1, Math.ceil((aheadUs - p.toleranceUs) / 1_000_000));
  return { allowed, limit: p.limit, used, remaining, resetSeconds, windowSeconds: p.windowSeconds };
}

/** Whether a request at `nowUs` passes, and the bucket's TAT afterwards. */
export function gcraStep(p: GcraPolicy, tatUs: number, nowUs: number): { allowed: boolean; tatUs: number } {
  const from = Math.max(tatUs, nowUs);
  const allowed = from - nowUs <= p.toleranceUs;
  return { allowed, tatUs: allowed ? from + p.intervalUs : tatUs };
}

/** GCRA with one theoretical arrival time per key in a Map; keys whose TAT has passed are dropped lazily. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly tats = new Map<string, number>();
  readonly windowSeconds: number;
  private readonly now: () => number;

  /** `now` answers milliseconds (Date.now by default). */
  constructor(options: { windowSeconds?: number; now?: () => number } = {}) {
    this.windowSeconds = options.windowSeconds ?? 60;
    this.now = options.now ?? Date.now;
  }

  async consume(key: string, limit: number): Promise<RateLimitState> {
    const p = gcraPolicy(limit, this.windowSeconds);
    const nowUs = this.nowUs();
    const step = gcraStep(p, this.tats.get(key) ?? nowUs, nowUs);
    if (step.allowed) {
      this.tats.set(key, step.tatUs);
      if (this.tats.size > 100_000) this.prune(nowUs);
    }
    return gcraState(p, step.tatUs, nowUs, step.allowed);
  }

  async peek(key: string, limit: number): Promise<RateLimitState> {
    const p = gcraPolicy(limit, this.windowSeconds);
    const nowUs = this.nowUs();
    const tatUs = this.tats.get(key) ?? nowUs;
    return gcraState(p, tatUs, nowUs, gcraStep(p, tatUs, nowUs).allowed);
  }

  private nowUs(): number {
    return Math.round(this.now() * 1000);
  }

  /** A key whose TAT is not ahead of now holds nothing against its account: the same as no entry. */
  private prune(nowUs: number): void {
    for (const [k, tat] of this.tats) if (tat <= nowUs) this.tats.delete(k);
  }
}
