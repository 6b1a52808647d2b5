import type { Store } from '../../store.js';
import type { SearchIndex } from './search-index.js';
import { loadSearchDelta } from './search-delta.js';
import { loadSearchIndex, type BuildStepListener } from './search-index.loader.js';

export interface SearchIndexHolderOptions {
  /** Told about background builds so shutdown can wait for them. */
  track?: (work: Promise<unknown>) => void;
  /** Refreshes start at most this often, so a stream of loads does not keep a core busy (default 1 s). */
  minRebuildIntervalMs?: number;
  /** Told when a build or a delta refresh finishes or fails (logs, metrics). */
  onBuilt?: (outcome: {
    ok: boolean;
    kind: 'build' | 'delta';
    ms: number;
    creators: number;
    changed?: number;
    error?: unknown;
  }) => void;
  onStep?: BuildStepListener;
  now?: () => number;
}

/**
 * Holds the search index of the store's current data version. When the data
 * changes, the index it holds no longer answers (searches go to SQL, which is
 * always current) and a refresh starts in the background: a *delta* — the
 * creators whose search fingerprint changed since the base was built, found
 * with one scan in DuckDB — while the changes are few (at most 5 % of the base),
 * a full rebuild otherwise. It answers again once refreshed for the version of
 * the moment. Works on a read-only replica too: both only read the store.
 */
export class SearchIndexHolder {
  private index: SearchIndex | null = null;
  private building: Promise<void> | null = null;
  private lastStart = -Infinity;
  private failed = false;

  constructor(
    private readonly store: Store,
    private readonly options: SearchIndexHolderOptions = {},
  ) {}

  /** The index when it reflects `version`; otherwise null, and a build starts (at most one at a time). */
  current(version: string): SearchIndex | null {
    if (this.index?.version === version) return this.index;
    const now = this.now();
    if (!this.building && now - this.lastStart >= (this.options.minRebuildIntervalMs ?? 1_000)) {
      this.lastStart = now;
      this.building = this.refresh().finally(() => {
        this.building = null;
      });
      this.options.track?.(this.building);
    }
    return null;
  }

  /**
   * Where searches stand for `version` (starting a build like `current`): answered by the index;
   * on SQL while the first build runs; or on SQL while a held index is refreshed or after a build failed.
   */
  readiness(version: string): 'current' | 'first-build' | 'stale' {
    if (this.current(version)) return 'current';
    return this.index === null && !this.failed ? 'first-build' : 'stale';
  }

  /** Resolves when the build in progress (if any) ends, or after `ms`, whichever is first. */
  async settled(ms: number): Promise<void> {
    if (!this.building) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.building,
      new Promise<void>((r) => {
        timer = setTimeout(r, ms);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Builds now and resolves when done (tests, tools, the bench). */
  async build(): Promise<void> {
    const started = performance.now();
    try {
      const index = await loadSearchIndex(this.store, this.options.onStep);
      this.index = index;
      this.options.onBuilt?.({ ok: true, kind: 'build', ms: performance.now() - started, creators: index.size });
    } catch (error) {
      this.failed = true;
      this.options.onBuilt?.({ ok: false, kind: 'build', ms: performance.now() - started, creators: 0, error });
    }
  }

  /** Brings the index to the store's data: a delta over the held base when the changes are few, else a build. */
  async refresh(): Promise<void> {
    const held = this.index;
    if (held) {
      const started = performance.now();
      try {
        const delta = await loadSearchDelta(
          this.store,
          held.baseFingerprints(),
          Math.max(1_000, Math.floor(held.size / 20)),
        );
        if (delta) {
          this.index = held.withDelta(delta);
          this.options.onBuilt?.({
            ok: true,
            kind: 'delta',
            ms: performance.now() - started,
            creators: held.size,
            changed: this.index.deltaSize,
          });
          return;
        }
      } catch (error) {
        this.options.onBuilt?.({
          ok: false,
          kind: 'delta',
          ms: performance.now() - started,
          creators: held.size,
          error,
        });
      }
    }
    await this.build();
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}
