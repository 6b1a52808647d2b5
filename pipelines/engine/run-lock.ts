import { serialisedOn } from '../../core/keyed-queue.js';
import type { Store } from '../../data/store.js';

const running = new WeakMap<Store, Set<string>>();

/**
 * Claims a pipeline for one run at a time (no overlap). Answers false when a run
 * of it is in flight, whoever started it: the scheduler, the CLI or the API.
 */
export function claimPipeline(store: Store, name: string): boolean {
  const set = running.get(store) ?? new Set<string>();
  running.set(store, set);
  if (set.has(name)) return false;
  set.add(name);
  return true;
}

export function releasePipeline(store: Store, name: string): void {
  running.get(store)?.delete(name);
}

/** The key loads into one store queue on (core/keyed-queue.ts, scoped to the store). */
export const LOAD_KEY = 'load';

/**
 * Runs loads into one store one after another: new creator ids are max + row
 * number, and two concurrent merges of the same rows would conflict anyway.
 * A load is several transactions (staging, merge, events), so it queues on the
 * store's keyed queue itself rather than through `transaction({ serialiseOn })`.
 */
export function serialiseLoad<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  return serialisedOn(LOAD_KEY, fn, store);
}
