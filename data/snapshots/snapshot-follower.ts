import { join } from 'node:path';
import { indexDirOf, prefetchIndexFiles } from '../creators/search-index/index-files.js';
import { backoffDelay } from '../state/backoff.js';
import type { StateDb } from '../state/state-db.js';
import { Store, type StoreOptions } from '../store.js';
import { forgetReader, heartbeatReader, latestSnapshot } from './snapshot.queries.js';

export interface FollowerOptions {
  dir: string;
  /** This replica's name (its heartbeat row). */
  reader: string;
  store?: Omit<StoreOptions, 'readOnly'>;
  /** How long to wait for the writer's first snapshot before giving up. */
  firstTimeoutMs?: number;
  onSwitch?: (version: number, switchMs: number, index: 'opened' | 'none' | 'refused') => void;
  /**
   * Open the next snapshot's search index files before switching to it, so that the switch takes the
   * index with the snapshot (`prefetchIndexFiles`); for a process that searches.
   */
  prefetchIndex?: boolean;
  /** Called with each failed check and how many failed in a row (checks back off meanwhile, up to 5 s). */
  onError?: (error: unknown, failures: number) => void;
}

/**
 * An API replica's view of the analytical store: the newest published snapshot,
 * opened read-only, moved to each newer one as it appears (`Store.switchTo`:
 * requests in flight finish on the old file, none fails or waits).
 */
export class SnapshotFollower {
  private version = 0;
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> = Promise.resolve();
  private failures = 0;
  private stopped = false;

  private constructor(
    readonly store: Store,
    private readonly state: StateDb,
    private readonly options: FollowerOptions,
    version: number,
  ) {
    this.version = version;
  }

  /** Waits for a published snapshot, opens it, and announces this reader. */
  static async open(state: StateDb, options: FollowerOptions): Promise<SnapshotFollower> {
    const deadline = Date.now() + (options.firstTimeoutMs ?? 10 * 60_000);
    for (;;) {
      const latest = await latestSnapshot(state);
      if (latest) {
        const store = await Store.open(join(options.dir, latest.file), { ...options.store, readOnly: true });
        await heartbeatReader(state, options.reader, latest.version);
        return new SnapshotFollower(store, state, options, latest.version);
      }
      if (Date.now() > deadline) throw new Error('no snapshot was published by a writer in time');
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** The snapshot version being read. */
  get current(): number {
    return this.version;
  }

  /**
   * Looks for a newer snapshot every `intervalMs` (a check that outlasts it, opening a large
   * snapshot, is never overlapped); while checks fail (PostgreSQL away) the gap grows to 5 s.
   */
  start(intervalMs: number): void {
    const tick = (): void => {
      this.checking = this.checkNow()
        .then(
          () => {
            this.failures = 0;
          },
          (error: unknown) => {
            this.failures += 1;
            this.options.onError?.(error, this.failures);
          },
        )
        .finally(() => {
          if (!this.stopped) this.schedule(tick, backoffDelay(this.failures, intervalMs));
        });
    };
    this.schedule(tick, intervalMs);
  }

  private schedule(tick: () => void, ms: number): void {
    this.timer = setTimeout(tick, ms);
    this.timer.unref();
  }

  /** Switches to the newest snapshot if it is newer than the one read; heartbeats either way. */
  async checkNow(): Promise<boolean> {
    const latest = await latestSnapshot(this.state);
    let switched = false;
    if (latest && latest.version > this.version) {
      const started = performance.now();
      const path = join(this.options.dir, latest.file);
      const index = this.options.prefetchIndex ? await prefetchIndexFiles(indexDirOf(path), latest.data_version) : null;
      await this.store.switchTo(path);
      this.version = latest.version;
      switched = true;
      this.options.onSwitch?.(
        latest.version,
        performance.now() - started,
        index?.index ? 'opened' : index && index.refused !== null ? 'refused' : 'none',
      );
    }
    await heartbeatReader(this.state, this.options.reader, this.version);
    return switched;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.checking;
    await forgetReader(this.state, this.options.reader).catch(() => undefined);
    await this.store.close();
  }
}
