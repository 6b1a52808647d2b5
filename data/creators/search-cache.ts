/**
 * A small TTL + LRU cache whose entries also die when the data version changes.
 * The version is looked up at most once per `versionCheckMs`, so a write made
 * outside this process's requests (a pipeline run, the model rescoring) is seen
 * within that time; `clear()` drops everything at once.
 */
export class VersionedCache<V> {
  private readonly entries = new Map<string, { value: V; expires: number }>();
  /** Loads in progress: concurrent misses of one key share one load (no thundering herd). */
  private readonly loading = new Map<string, Promise<V>>();
  private version: string | null = null;
  private checkedAt = 0;
  private checking: Promise<void> | null = null;

  constructor(
    private readonly readVersion: () => Promise<string>,
    private readonly options: { ttlMs: number; maxEntries: number; versionCheckMs: number; now?: () => number },
  ) {}

  /** The cached value for `key`, or `load()`'s (then cached). */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    if (this.options.ttlMs <= 0) return load();
    await this.refreshVersion();
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) {
      this.entries.delete(key);
      this.entries.set(key, hit); // most recently used last
      return hit.value;
    }
    const pending = this.loading.get(key);
    if (pending) return pending;
    const versionBefore = this.version;
    const loaded = load()
      .then((value) => {
        if (this.version === versionBefore) this.put(key, value, this.now());
        return value;
      })
      .finally(() => this.loading.delete(key));
    this.loading.set(key, loaded);
    return loaded;
  }

  clear(): void {
    this.entries.clear();
    this.loading.clear();
    this.version = null;
    this.checkedAt = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  private put(key: string, value: V, now: number): void {
    this.entries.set(key, { value, expires: now + this.options.ttlMs });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  private async refreshVersion(): Promise<void> {
    if (this.now() - this.checkedAt < this.options.versionCheckMs) return;
    this.checking ??= this.readVersion()
      .then((v) => {
        if (v !== this.version) this.entries.clear();
        this.version = v;
        this.checkedAt = this.now();
      })
      .finally(() => {
        this.checking = null;
      });
    await this.checking;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
