const tails = new Map<string, Promise<unknown>>();

/**
 * Runs an account's list writes one at a time. DuckDB transactions are
 * optimistic: two concurrent adds to one list conflict on the same keys and one
 * of them fails, and two concurrent creates could both pass the plan's list
 * count. Queuing per account in-process is enough because the store has a
 * single writer process (DuckDB's file lock).
 */
export async function serialisedFor<T>(accountId: string, fn: () => Promise<T>): Promise<T> {
  const previous = tails.get(accountId) ?? Promise.resolve();
  const run = previous.then(fn, fn);
  const tail = run.catch(() => undefined);
  tails.set(accountId, tail);
  try {
    return await run;
  } finally {
    if (tails.get(accountId) === tail) tails.delete(accountId);
  }
}
