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
