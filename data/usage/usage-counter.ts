import { touchLastUsed } from '../keys/key.queries.js';
import type { StateDb } from '../state/state-db.js';
import { addUsage, type UsageCell } from './usage.queries.js';

/** How often a process writes its counts: usage is at most this far behind (plus the flush itself). */
export const USAGE_FLUSH_MS = 10_000;

/** One counted request. */
export interface UsageSample {
  accountId: string;
  keyId: string;
  /** The route's OpenAPI operationId. */
  operation: string;
  status: number;
  at: number;
}

/** Status classes counted; anything outside 2xx–5xx is filed under the nearest. */
export function statusClass(status: number): '2xx' | '3xx' | '4xx' | '5xx' {
  if (status < 300) return '2xx';
  if (status < 400) return '3xx';
  if (status < 500) return '4xx';
  return '5xx';
}

/**
 * Counts API requests in memory and writes them in batches: per flush, one
 * upsert-with-addition per 200 cells (account, minute, key, operation, status
 * class) and one `last_used_at` update per key used, never a write per request.
 * Several processes add to the same rows safely. A failed flush keeps its counts
 * for the next one.
 */
export class UsageCounter {
  private cells = new Map<string, UsageCell>();
  private lastUsed = new Map<string, number>();
  private flushing: Promise<void> = Promise.resolve();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly state: StateDb,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  record(sample: UsageSample): void {
    const minute = new Date(sample.at - (sample.at % 60_000)).toISOString();
    const cls = statusClass(sample.status);
    const id = `${sample.accountId}\t${minute}\t${sample.keyId}\t${sample.operation}\t${cls}`;
    let cell = this.cells.get(id);
    if (!cell) {
      cell = {
        account_id: sample.accountId,
        minute,
        key_id: sample.keyId,
        operation: sample.operation,
        status_class: cls,
        requests: 0,
        rate_limited: 0,
      };
      this.cells.set(id, cell);
    }
    cell.requests += 1;
    if (sample.status === 429) cell.rate_limited += 1;
    this.lastUsed.set(sample.keyId, Math.max(this.lastUsed.get(sample.keyId) ?? 0, sample.at));
  }

  /** Writes every count so far (flushes run one at a time; this one waits for one in progress). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeBatch());
    return this.flushing;
  }

  /** Flushes every `intervalMs` until `stop()`; the timer never keeps the process alive. */
  start(intervalMs = USAGE_FLUSH_MS): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.flush().catch(() => undefined);
    }, intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and writes what is left. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  private async writeBatch(): Promise<void> {
    if (this.cells.size === 0) return;
    const cells = [...this.cells.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
    const lastUsed = [...this.lastUsed.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
    this.cells = new Map();
    this.lastUsed = new Map();
    try {
      await this.state.transaction(async (tx) => {
        await addUsage(tx, cells);
        for (const [keyId, at] of lastUsed) await touchLastUsed(tx, keyId, new Date(at).toISOString());
      });
    } catch (error) {
      this.restore(cells, lastUsed);
      this.onError(error);
    }
  }

  private restore(cells: readonly UsageCell[], lastUsed: ReadonlyArray<readonly [string, number]>): void {
    for (const c of cells) {
      const id = `${c.account_id}\t${c.minute}\t${c.key_id}\t${c.operation}\t${c.status_class}`;
      const now = this.cells.get(id);
      if (now) {
        now.requests += c.requests;
        now.rate_limited += c.rate_limited;
      } else {
        this.cells.set(id, { ...c });
      }
    }
    for (const [keyId, at] of lastUsed) this.lastUsed.set(keyId, Math.max(this.lastUsed.get(keyId) ?? 0, at));
  }
}
