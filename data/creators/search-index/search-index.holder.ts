import type { Store } from '../../store.js';
import type { SearchIndex } from './search-index.js';
import { loadSearchIndex, type BuildStepListener } from './search-index.loader.js';

export interface SearchIndexHolderOptions {
  /** Told about background builds so shutdown can wait for them. */
  track?: (work: Promise<unknown>) => void;
  /** Builds start at most this often, so a stream of loads does not keep a core busy building (default 5 s). */
  minRebuildIntervalMs?: number;
  /** Told when a build finishes or fails (logs, metrics). */
  onBuilt?: (outcome: { ok: boolean; ms: number; creators: number; error?: unknown }) => void;
  onStep?: BuildStepListener;
  now?: () => number;
}

/**
 * Holds the search index of the store's current data version. When the data
 * changes, the index it holds no longer answers (searches go to SQL, which is
 * always current) and a new one is built in the background; it answers again
 * once built for the version of the moment. Works on a read-only replica too:
 * the build only reads the store.
 */
export class SearchIndexHolder {
  private index: SearchIndex | null = null;
  private building: Promise<void> | null = null;
  private lastStart = -Infinity;

  constructor(private readonly store: Store, private readonly options: SearchIndexHolderOptions = {}) {}

  /** The index when it reflects `version`; otherwise null, and a build starts (at most one at a time). */
  current(version: string): SearchIndex | null {
    if (this.index?.version === version) return this.index;
    const now = this.now();
    if (!this.building && now - this.lastStart >= (this.options.minRebuildIntervalMs ?? 5_000)) {
      this.lastStart = now;
      this.building = this.build().finally(() => {
        this.building = null;
      });
      this.options.track?.(this.building);
    }
    return null;
  }

  /** Builds now and resolves when done (tests, tools, the bench). */
  async build(): Promise<void> {
    const started = performance.now();
    try {
      const index = await loadSearchIndex(this.store, this.options.onStep);
      this.index = index;
      this.options.onBuilt?.({ ok: true, ms: performance.now() - started, creators: index.size });
    } catch (error) {
      this.options.onBuilt?.({ ok: false, ms: performance.now() - started, creators: 0, error });
    }
  }

  /** The index held, whatever its version (diagnostics). */
  get held(): SearchIndex | null {
    return this.index;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
