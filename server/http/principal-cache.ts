import { authEpoch } from '../../data/keys/auth-epoch.js';
import { keysFingerprint } from '../../data/keys/key.queries.js';
import {
  hashKey,
  livePrincipal,
  lookupKey,
  looksLikeKey,
  type KeyLookup,
  type Principal,
} from '../../data/keys/key.service.js';
import type { StateDb } from '../../data/state/state-db.js';

/**
 * How long another process's change to keys or accounts (a revocation, a
 * rotation, a plan change made on another API replica or with the CLI against
 * PostgreSQL) may go unseen here: the fingerprint of `api_keys` and `accounts`
 * is read at most this often.
 */
export const KEYS_RECHECK_MS = 1_000;

export interface PrincipalCacheOptions {
  maxEntries?: number;
  recheckMs?: number;
  now?: () => number;
}

/**
 * Key → principal with at most one indexed lookup per key, in a bounded LRU by
 * key hash. Changes made in this process (revoke, rotate, create, set-plan) bump
 * the state's auth epoch and empty the cache before the next request; changes
 * made elsewhere move the keys fingerprint, read at most once per
 * `KEYS_RECHECK_MS` (shared by concurrent requests), which empties it too.
 * Expiry and a rotated-out secret's grace are checked per request against the clock.
 */
export class PrincipalCache {
  private readonly entries = new Map<string, KeyLookup | null>();
  private readonly loading = new Map<string, Promise<KeyLookup | null>>();
  private fingerprint: string | null = null;
  private checkedAt = Number.NEGATIVE_INFINITY;
  private checking: Promise<void> | null = null;
  private epoch: number;
  /** Bumped whenever the cache empties, so a lookup begun before cannot refill it with a stale row. */
  private generation = 0;
  private readonly maxEntries: number;
  private readonly recheckMs: number;
  private readonly now: () => number;

  constructor(
    private readonly state: StateDb,
    options: PrincipalCacheOptions = {},
  ) {
    this.maxEntries = options.maxEntries ?? 10_000;
    this.recheckMs = options.recheckMs ?? KEYS_RECHECK_MS;
    this.now = options.now ?? Date.now;
    this.epoch = authEpoch(state);
  }

  /** The principal for a presented key, or null when it is malformed, unknown, revoked or expired. */
  async authenticate(presented: string): Promise<Principal | null> {
    if (!looksLikeKey(presented)) return null;
    await this.revalidate();
    const hash = hashKey(presented);
    return livePrincipal(await this.lookup(presented, hash), this.now());
  }

  /** Empties the cache (tests; callers that changed keys some way the epoch does not see). */
  clear(): void {
    this.entries.clear();
    this.loading.clear();
    this.generation += 1;
  }

  private async lookup(presented: string, hash: string): Promise<KeyLookup | null> {
    const cached = this.entries.get(hash);
    if (cached !== undefined) {
      // most recently used last: the first entry is the one to evict
      this.entries.delete(hash);
      this.entries.set(hash, cached);
      return cached;
    }
    const generation = this.generation;
    let pending = this.loading.get(hash);
    if (!pending) {
      pending = lookupKey(this.state, presented).finally(() => this.loading.delete(hash));
      this.loading.set(hash, pending);
    }
    const found = await pending;
    if (generation === this.generation) this.remember(hash, found);
    return found;
  }

  private remember(hash: string, found: KeyLookup | null): void {
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(hash, found);
  }

  /** Empties the cache when this process changed keys (epoch) or, at most once per `recheckMs`, when the fingerprint moved. */
  private async revalidate(): Promise<void> {
    const epoch = authEpoch(this.state);
    if (epoch !== this.epoch) {
      this.epoch = epoch;
      this.clear();
    }
    if (this.now() - this.checkedAt < this.recheckMs) return;
    this.checking ??= this.readFingerprint().finally(() => {
      this.checking = null;
    });
    await this.checking;
  }

  private async readFingerprint(): Promise<void> {
    const startedAt = this.now();
    const fingerprint = await keysFingerprint(this.state);
    if (fingerprint !== this.fingerprint) {
      this.fingerprint = fingerprint;
      this.clear();
    }
    this.checkedAt = startedAt;
  }
}
