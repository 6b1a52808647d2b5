/**
 * Work written as a generator that yields every few thousand elements, so that it can run either at once
 * (`drain`) or in slices of the event loop (`runSliced`) with the same steps and the same result.
 */
export type Steps<T> = Generator<void, T, void>;

/** Runs the steps to their end now (a caller that cannot wait: tests, tools). */
export function drain<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * Runs the steps about `sliceMs` at a time, each slice in a turn of its own after the event loop's I/O
 * (`setImmediate`), so that requests are served between slices. Resolves when the steps end, also when
 * someone else drained them meanwhile (then with no value).
 */
export async function runSliced<T>(steps: Steps<T>, sliceMs: number): Promise<T | undefined> {
  for (;;) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    const until = performance.now() + sliceMs;
    do {
      const r = steps.next();
      if (r.done) return r.value;
    } while (performance.now() < until);
  }
}

/**
 * Values built once per key by sliced steps (`make`), kept while the key lives: `now` answers the value,
 * finishing a build in progress rather than starting another; `prepared` runs the build in slices, and a
 * caller arriving during it joins it. A build that throws is forgotten, so the next caller starts again.
 */
export class SlicedBuilds<K extends object, V> {
  private readonly values = new WeakMap<K, V>();
  private readonly running = new WeakMap<K, { steps: Steps<V>; done: Promise<V> | null }>();
  private readonly waiting = new WeakMap<K, Promise<void>>();

  constructor(private readonly make: (key: K) => Steps<V>) {}

  now(key: K): V {
    return this.values.get(key) ?? drain(this.build(key).steps);
  }

  /** Whether the value of `key` is built (or was given). */
  has(key: K): boolean {
    return this.values.has(key);
  }

  /** Takes `value` as the key's, built elsewhere (read from the index files); a build in progress is left to end. */
  set(key: K, value: V): void {
    this.values.set(key, value);
  }

  /**
   * A value for `key` may come from `given` (which `set`s it, or gives up): `prepared` waits for it before it
   * builds one (`now`, which cannot wait, builds).
   */
  await(key: K, given: Promise<void>): void {
    const settled = given.catch(() => undefined);
    this.waiting.set(key, settled);
    void settled.then(() => {
      if (this.waiting.get(key) === settled) this.waiting.delete(key);
    });
  }

  prepared(key: K, sliceMs: number): Promise<V> {
    const value = this.values.get(key);
    if (value !== undefined) return Promise.resolve(value);
    const given = this.waiting.get(key);
    if (given) return given.then(() => this.prepared(key, sliceMs));
    const build = this.build(key);
    build.done ??= runSliced(build.steps, sliceMs).then(() => this.values.get(key)!);
    return build.done;
  }

  private build(key: K): { steps: Steps<V>; done: Promise<V> | null } {
    let build = this.running.get(key);
    if (!build) {
      build = { steps: this.stored(key), done: null };
      this.running.set(key, build);
    }
    return build;
  }

  private *stored(key: K): Steps<V> {
    try {
      const value = yield* this.make(key);
      this.values.set(key, value);
      return value;
    } finally {
      this.running.delete(key);
    }
  }
}
