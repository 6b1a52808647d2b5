import type { Store } from '../../store.js';
import {
  type IndexManifest,
  indexDirOf,
  keepBase,
  openIndexFiles,
  takePrefetched,
  writeDeltaFile,
  writeIndexFiles,
} from './index-files.js';
import { prepareLookalikeModel } from './lookalike-model.js';
import type { SearchIndex } from './search-index.js';
import { loadSearchDelta, type SearchDelta } from './search-delta.js';
import { loadSearchIndex, type BuildStepListener } from './search-index.loader.js';

export interface SearchIndexHolderOptions {
  /** Told about background builds so shutdown can wait for them. */
  track?: (work: Promise<unknown>) => void;
  /** Refreshes start at most this often, so a stream of loads does not keep a core busy (default 1 s). */
  minRebuildIntervalMs?: number;
  /**
   * Open the index from its files beside the store (index-files.ts) before building, and write them
   * after a build of a writable store (default true; never for an in-memory store).
   */
  files?: boolean;
  /**
   * Prepare the lookalike vectors with each index, built or opened (default true; docs/lookalikes.md);
   * false leaves them to the first lookalike request.
   */
  prepareLookalikes?: boolean;
  /** Told when a build, a delta refresh, an open of the index files or their write finishes or fails (logs, metrics). */
  onBuilt?: (outcome: {
    ok: boolean;
    kind: 'build' | 'delta' | 'open' | 'write' | 'write-delta';
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
 *
 * With index files beside the store (written by the process that owns it, or
 * by the snapshot publisher), the first index is opened, not built: the files
 * of the current data version as they are (or a base's files and the delta
 * segment written for the version), else the newest version's as a base
 * brought up to date by a delta. Files that fail a check are refused (told to
 * `onBuilt`) and the index is built from the store instead. A process that
 * owns its store writes, after a delta, the delta segment over the base files
 * it holds (docs/search.md, "Delta segments"), so that the next start opens
 * base and delta instead of computing the delta again.
 */
export class SearchIndexHolder {
  private index: SearchIndex | null = null;
  /** The manifest of the files the held index's base was written to or opened from (null: none). */
  private filesBase: IndexManifest | null = null;
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
    // a replica's snapshot switch: the new snapshot's index was opened before the switch
    const prefetched = this.files ? takePrefetched(indexDirOf(this.store.path), version) : null;
    if (prefetched) {
      this.adopt(prefetched, null);
      return prefetched;
    }
    const now = this.now();
    if (!this.building && now - this.lastStart >= (this.options.minRebuildIntervalMs ?? 1_000)) {
      this.lastStart = now;
      this.building = this.refresh(version).finally(() => {
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

  /** Builds now and resolves when done (tests, tools, the bench); then writes its files (see `files`). */
  async build(): Promise<void> {
    const started = performance.now();
    let index: SearchIndex;
    try {
      index = await loadSearchIndex(this.store, this.options.onStep, {
        lookalikes: this.options.prepareLookalikes !== false,
      });
      this.index = index;
      this.filesBase = null;
      this.options.onBuilt?.({ ok: true, kind: 'build', ms: performance.now() - started, creators: index.size });
    } catch (error) {
      this.failed = true;
      this.options.onBuilt?.({ ok: false, kind: 'build', ms: performance.now() - started, creators: 0, error });
      return;
    }
    await this.writeFiles(index);
  }

  /** Whether the index of the store's data opens from files (the first index or a new version's), and adopts it. */
  private async openFiles(version: string | undefined): Promise<boolean> {
    if (!this.files) return false;
    const started = performance.now();
    // without an index held, any version's files are a base; with one, only the new version's beat a delta
    const opened = await openIndexFiles(indexDirOf(this.store.path), version ?? null, { orNewest: !this.index });
    if (opened.index) {
      this.adopt(opened.index, opened.manifest);
      this.options.onBuilt?.({ ok: true, kind: 'open', ms: performance.now() - started, creators: opened.index.size });
      return true;
    }
    if (opened.refused !== null)
      this.options.onBuilt?.({
        ok: false,
        kind: 'open',
        ms: performance.now() - started,
        creators: 0,
        error: new Error(`index files refused, building from the store instead: ${opened.refused}`),
      });
    return false;
  }

  /**
   * Takes an opened index; its handle table and lookalike vectors (docs/lookalikes.md) are prepared after it, off the
   * request that found it.
   */
  private adopt(index: SearchIndex, filesBase: IndexManifest | null): void {
    this.index = index;
    this.filesBase = filesBase;
    const lookalikes = this.options.prepareLookalikes !== false;
    // in slices beside the requests (docs/search.md); a lookalike request meanwhile waits for this build
    // (lookalike.service.ts)
    const prepared = index.prepare().then(async () => {
      if (lookalikes) await prepareLookalikeModel(index.lookalikeView().data);
    });
    // a failed build is started again by the first lookalike request, which answers its error
    this.options.track?.(prepared.catch(() => undefined));
  }

  /** Writes a built index's files beside a writable store, so the next process opens them (index-files.ts). */
  private async writeFiles(index: SearchIndex): Promise<void> {
    const dir = indexDirOf(this.store.path);
    if (!this.files || !dir || this.store.readOnly) return;
    const started = performance.now();
    try {
      const manifest = await writeIndexFiles(dir, index);
      if (this.index === index) this.filesBase = manifest;
      this.options.onBuilt?.({ ok: true, kind: 'write', ms: performance.now() - started, creators: index.size });
    } catch (error) {
      this.options.onBuilt?.({
        ok: false,
        kind: 'write',
        ms: performance.now() - started,
        creators: index.size,
        error,
      });
    }
  }

  /** Writes the delta segment over the held base's files beside a writable store (docs/search.md, "Delta segments"). */
  private async writeDelta(held: SearchIndex, delta: SearchDelta): Promise<void> {
    const dir = indexDirOf(this.store.path);
    const base = this.filesBase;
    if (!this.files || !dir || this.store.readOnly || !base || base.data_version !== held.baseVersion) return;
    const started = performance.now();
    try {
      await writeDeltaFile(dir, delta, base);
      this.options.onBuilt?.({
        ok: true,
        kind: 'write-delta',
        ms: performance.now() - started,
        creators: held.size,
        changed: delta.rows.length,
      });
    } catch (error) {
      this.options.onBuilt?.({
        ok: false,
        kind: 'write-delta',
        ms: performance.now() - started,
        creators: held.size,
        error,
      });
    }
  }

  private get files(): boolean {
    return this.options.files !== false && this.store.path !== ':memory:';
  }

  /**
   * Brings the index to the store's data (`version`, when the caller knows it): the version's index files
   * when present, else a delta over the held base (or over the newest files' base) when the changes are few,
   * else a build.
   */
  async refresh(version?: string): Promise<void> {
    if (await this.openFiles(version)) {
      if (version !== undefined && this.index?.version === version) return;
    }
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
          keepBase(this.index, held);
          this.options.onBuilt?.({
            ok: true,
            kind: 'delta',
            ms: performance.now() - started,
            creators: held.size,
            changed: this.index.deltaSize,
          });
          await this.writeDelta(held, delta);
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
