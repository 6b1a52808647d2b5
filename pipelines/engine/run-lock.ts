import type { Store } from '../../data/store.js';

const running = new WeakMap<Store, Set<string>>();
const loadChains = new WeakMap<Store, Promise<unknown>>();

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

/**
 * Runs loads into one store one after another: new creator ids are max + row
 * number, and two concurrent merges of the same rows would conflict anyway.
 */
export function serialiseLoad<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  const previous = loadChains.get(store) ?? Promise.resolve();
  const next = previous.then(fn, fn);
  loadChains.set(store, next.catch(() => undefined));
  return next;
}
