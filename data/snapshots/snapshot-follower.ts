import { join } from 'node:path';
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
  onSwitch?: (version: number, switchMs: number) => void;
  onError?: (error: unknown) => void;
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
  private busy = false;

  private constructor(readonly store: Store, private readonly state: StateDb, private readonly options: FollowerOptions, version: number) {
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

  /** Looks for a newer snapshot every `intervalMs`. */
  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      if (this.busy) return; // opening a large snapshot can outlast the interval
      this.busy = true;
      this.checking = this.checkNow().then(() => undefined, (error: unknown) => this.options.onError?.(error))
        .finally(() => { this.busy = false; });
    }, intervalMs);
    this.timer.unref();
  }

  /** Switches to the newest snapshot if it is newer than the one read; heartbeats either way. */
  async checkNow(): Promise<boolean> {
    const latest = await latestSnapshot(this.state);
    let switched = false;
    if (latest && latest.version > this.version) {
      const started = performance.now();
      await this.store.switchTo(join(this.options.dir, latest.file));
      this.version = latest.version;
      switched = true;
      this.options.onSwitch?.(latest.version, performance.now() - started);
    }
    await heartbeatReader(this.state, this.options.reader, this.version);
    return switched;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.checking;
    await forgetReader(this.state, this.options.reader).catch(() => undefined);
    await this.store.close();
  }
}
