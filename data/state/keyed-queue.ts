const tails = new Map<string, Promise<unknown>>();

/**
 * Runs work under one key one at a time, in this process. DuckDB transactions
 * are optimistic: two concurrent writes to the same rows conflict and one fails,
 * and two concurrent creates could both pass a count check. One process owns the
 * DuckDB file, so an in-process queue is enough there (PostgreSQL uses an
 * advisory lock instead; see `TransactionOptions.serialiseOn`).
 */
export async function serialisedOn<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.catch(() => undefined);
  tails.set(key, tail);
  try {
    return await run;
  } finally {
    if (tails.get(key) === tail) tails.delete(key);
  }
}
