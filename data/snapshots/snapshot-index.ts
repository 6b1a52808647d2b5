import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  deltaNameOf,
  type IndexManifest,
  indexDirOf,
  openIndexFiles,
  stemOf,
  writeDeltaFile,
} from '../creators/search-index/index-files.js';
import { PUBLISHED_DELTA_MAX } from '../creators/search-index/delta-files.js';
import { loadSearchDelta, type BaseFingerprints } from '../creators/search-index/search-delta.js';
import { writeSearchIndexFiles } from '../creators/search-index/search-index.loader.js';
import { Store, type StoreOptions } from '../store.js';

/** Index files of versions other than the newest kept in the snapshots' `search-index/` folder. */
const KEEP_OTHERS = 2;
/**
 * Below this many creators no files are written: a replica builds such an index in about a second, and
 * each publish would wait as long for them (a snapshot is recorded after its files).
 */
const MIN_CREATORS = 100_000;

/**
 * What one publish did for the index: built and wrote its files, wrote a delta segment over the last files,
 * found them, wrote none for a small store (`MIN_CREATORS`), or failed (the snapshot goes out without them;
 * `error` says why).
 */
export interface SnapshotIndexOutcome {
  kind: 'built' | 'delta' | 'present' | 'small' | 'failed';
  ms: number;
  error?: string;
  /** Creators changed since the last files (a delta only). */
  changed?: number;
  /** The delta segment's size in bytes (a delta only). */
  bytes?: number;
}

/**
 * Writes the search index files of each published snapshot into the snapshots'
 * `search-index/` folder, reading only the snapshot's copy (so loads go on
 * meanwhile). When the snapshot changed few creators since the last files
 * (`PUBLISHED_DELTA_MAX`: a delta's rows cost every search), only a delta segment is written
 * (docs/search.md, "Delta segments"): a replica opens the last files, or keeps
 * the base it holds, and applies it. Otherwise the index is built from the
 * copy and written, and becomes the base the next snapshots are compared with.
 */
export class SnapshotIndexWriter {
  /** The last files' fingerprints (copies: a few bytes per creator, not the index). */
  private base: (BaseFingerprints & { manifest: IndexManifest }) | null = null;

  /**
   * @param options.maxDelta the most changed creators left to a delta, for a base of `creators`
   *   (default `PUBLISHED_DELTA_MAX`, 500)
   * @param options.minCreators no files for a store of fewer creators (default 100,000)
   */
  constructor(
    private readonly options: {
      store?: Omit<StoreOptions, 'readOnly'>;
      maxDelta?: (creators: number) => number;
      minCreators?: number;
    } = {},
  ) {}

  async write(file: string, dataVersion: string): Promise<SnapshotIndexOutcome> {
    const started = performance.now();
    const dir = indexDirOf(file)!;
    if (existsSync(join(dir, `${stemOf(dataVersion)}.json`)) || existsSync(join(dir, deltaNameOf(dataVersion))))
      return { kind: 'present', ms: performance.now() - started };
    const store = await Store.open(file, { ...this.options.store, readOnly: true });
    try {
      const creators = (await store.one<{ n: number }>('SELECT count(*) AS n FROM creators'))?.n ?? 0;
      if (creators < (this.options.minCreators ?? MIN_CREATORS))
        return { kind: 'small', ms: performance.now() - started };
      this.base ??= await this.lastFiles(dir);
      if (this.base) {
        const max = (this.options.maxDelta ?? (() => PUBLISHED_DELTA_MAX))(this.base.ids.length);
        const delta = await loadSearchDelta(store, this.base, max);
        if (delta) {
          const bytes = await writeDeltaFile(dir, delta, this.base.manifest);
          return {
            kind: 'delta',
            ms: performance.now() - started,
            changed: Math.max(delta.rows.length, delta.dead.count()),
            bytes,
          };
        }
      }
      // written part by part: the writer never holds the whole index (docs/search.md, "The index as files")
      const written = await writeSearchIndexFiles(store, dir, { keepOthers: KEEP_OTHERS });
      this.base = { ...copyFingerprints(written), manifest: written.manifest };
      return { kind: 'built', ms: performance.now() - started };
    } finally {
      await store.close();
    }
  }

  /** The fingerprints of the newest files in `dir` (a writer taking over finds its predecessor's). */
  private async lastFiles(dir: string): Promise<(BaseFingerprints & { manifest: IndexManifest }) | null> {
    const opened = await openIndexFiles(dir, null);
    return opened.index ? { ...copyFingerprints(opened.index.baseFingerprints()), manifest: opened.manifest } : null;
  }
}

/** The fingerprints apart from the index they come from, which can then be collected. */
function copyFingerprints(base: Pick<BaseFingerprints, 'ids' | 'rows' | 'audience'>): BaseFingerprints {
  const ids = base.ids.slice();
  const byId = Int32Array.from(ids.keys()).sort((a, b) => ids[a]! - ids[b]!);
  return {
    ids,
    rows: base.rows.slice(),
    audience: base.audience.slice(),
    positionOf: (creatorId) => {
      let lo = 0;
      let hi = byId.length - 1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        const v = ids[byId[mid]!]!;
        if (v === creatorId) return byId[mid]!;
        if (v < creatorId) lo = mid + 1;
        else hi = mid - 1;
      }
      return -1;
    },
  };
}
