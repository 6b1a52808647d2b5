/** The state of one account's window after a request was counted (or looked at). */
export interface RateLimitState {
  allowed: boolean;
  /** Requests the policy allows per window. */
  limit: number;
  /** Requests left in the current window (never negative). */
  remaining: number;
  /** Requests counted in the current window. */
  used: number;
  /** Whole seconds until the window resets (≥ 1). */
  resetSeconds: number;
  windowSeconds: number;
}

/**
 * Counts requests per account in fixed windows. The in-memory implementation
 * serves one process; a shared one (PostgreSQL: one row per account and window,
 * `INSERT … ON CONFLICT DO UPDATE SET n = n + 1 RETURNING n`) can implement the
 * same interface for several server processes.
 */
export interface RateLimiter {
  readonly windowSeconds: number;
  /** Counts one request for `key` against `limit` per window. */
  consume(key: string, limit: number): Promise<RateLimitState>;
  /** The current window's state without counting. */
  peek(key: string, limit: number): Promise<RateLimitState>;
}

/** Fixed-window counters in a Map; old windows are dropped lazily. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { start: number; used: number }>();
  readonly windowSeconds: number;
  private readonly now: () => number;

  constructor(options: { windowSeconds?: number; now?: () => number } = {}) {
    this.windowSeconds = options.windowSeconds ?? 60;
    this.now = options.now ?? Date.now;
  }

  async consume(key: string, limit: number): Promise<RateLimitState> {
    const w = this.current(key);
    const allowed = w.used < limit;
    if (allowed) w.used += 1;
    return this.state(w, limit, allowed);
  }

  async peek(key: string, limit: number): Promise<RateLimitState> {
    const w = this.current(key);
    return this.state(w, limit, w.used < limit);
  }

  private current(key: string): { start: number; used: number } {
    const size = this.windowSeconds * 1000;
    const start = Math.floor(this.now() / size) * size;
    let w = this.windows.get(key);
    if (!w || w.start !== start) {
      w = { start, used: 0 };
      this.windows.set(key, w);
      if (this.windows.size > 100_000) this.prune(start);
    }
    return w;
  }

  private prune(start: number): void {
    for (const [k, w] of this.windows) if (w.start !== start) this.windows.delete(k);
  }

  private state(w: { start: number; used: number }, limit: number, allowed: boolean): RateLimitState {
    const resetMs = w.start + this.windowSeconds * 1000 - this.now();
    return { allowed, limit, used: w.used, remaining: Math.max(0, limit - w.used),
      resetSeconds: Math.max(1, Math.ceil(resetMs / 1000)), windowSeconds: this.windowSeconds };
  }
}
