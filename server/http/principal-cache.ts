import { PLANS, type Plan } from '../../config/config.js';
import type { Principal } from '../../data/keys/key.service.js';
import { hashKey } from '../../data/keys/key.service.js';
import { findKeyByHash, keysFingerprint } from '../../data/keys/key.queries.js';
import type { StateDb } from '../../data/state/state-db.js';

interface Entry {
  principal: Principal | null;
  revoked: boolean;
  expiresAt: number | null;
}

const KEY_SHAPE = /^cds_[0-9A-Za-z]{32,}$/;

/**
 * Key → principal without a key lookup per request, and still with revocation,
 * expiry and plan changes taking effect at once: every request waits for a
 * fingerprint of `api_keys` and `accounts` read that *started after the request
 * arrived* (concurrent requests share one such read), and the cache is dropped
 * whenever the fingerprint moved. Expiry is checked per request against the clock.
 */
export class PrincipalCache {
  private version: string | null = null;
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Entry>>();
  private inFlight: Promise<string> | null = null;
  private queued: Promise<string> | null = null;

  constructor(private readonly state: StateDb, private readonly maxEntries = 10_000, private readonly now: () => number = Date.now) {}

  /** The principal for a presented key, or null when it is malformed, unknown, revoked or expired. */
  async authenticate(presented: string): Promise<Principal | null> {
    if (!KEY_SHAPE.test(presented)) return null;
    const version = await this.freshVersion();
    if (version !== this.version) {
      this.entries.clear();
      this.version = version;
    }
    const hash = hashKey(presented);
    let entry = this.entries.get(hash);
    if (!entry) {
      // shared only by requests that saw the same version, so no one gets a row read before a change they must see
      const loadKey = `${version}\n${hash}`;
      const pending = this.loading.get(loadKey) ?? this.load(hash).finally(() => this.loading.delete(loadKey));
      this.loading.set(loadKey, pending);
      entry = await pending;
      if (this.version === version) {
        if (this.entries.size >= this.maxEntries) this.entries.clear();
        this.entries.set(hash, entry);
      }
    }
    if (!entry.principal || entry.revoked) return null;
    if (entry.expiresAt !== null && entry.expiresAt <= this.now()) return null;
    return entry.principal;
  }

  /** A fingerprint read that began after this call: join the queued read, or start one. */
  private freshVersion(): Promise<string> {
    if (!this.inFlight) {
      this.inFlight = this.readVersion().finally(() => {
        this.inFlight = null;
      });
      return this.inFlight;
    }
    this.queued ??= this.inFlight.catch(() => undefined).then(() => {
      this.queued = null;
      return this.freshVersion();
    });
    return this.queued;
  }

  private readVersion(): Promise<string> {
    return keysFingerprint(this.state);
  }

  private async load(hash: string): Promise<Entry> {
    const row = await findKeyByHash(this.state, hash);
    if (!row || !(PLANS as readonly string[]).includes(row.plan)) return { principal: null, revoked: false, expiresAt: null };
    return {
      principal: { keyId: row.key_id, accountId: row.account_id, accountName: row.account_name, plan: row.plan as Plan,
        scopes: new Set(row.scopes) },
      revoked: row.revoked_at !== null,
      expiresAt: row.expires_at ? row.expires_at.getTime() : null,
    };
  }
}
