/** Queues of work per key, per scope; the default scope is the process. */
const scopes = new WeakMap<object, Map<string, Promise<unknown>>>();
const PROCESS = {};

/**
 * Runs work under one key one at a time, in this process: the one guard against
 * DuckDB's "Conflict on update" (see data/README.md, "Write conflicts").
 * DuckDB transactions are optimistic: two concurrent writes to the same rows
 * conflict and one fails, and two concurrent creates could both pass a count
 * check. One process owns the DuckDB file, so an in-process queue is enough
 * there; `Store.transaction(fn, { serialiseOn })` runs through it, and PostgreSQL
 * takes a transaction-scoped advisory lock on the same key instead
 * (`TransactionOptions.serialiseOn`).
 *
 * Work that is more than one transaction (a pipeline load: staging, merge,
 * events) calls this directly, with `scope` (the store) so that two stores in
 * one process — tests, a replica switching files — keep separate queues.
 */
export async function serialisedOn<T>(key: string, fn: () => Promise<T>, scope: object = PROCESS): Promise<T> {
  const tails = scopes.get(scope) ?? new Map<string, Promise<unknown>>();
  scopes.set(scope, tails);
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

/** DuckDB's answer to two writers of one row: "Conflict on update", "Conflict on tuple deletion". */
export function isWriteConflict(error: unknown): boolean {
  return /Conflict on/i.test(error instanceof Error ? error.message : String(error));
}

/**
 * The other half of the guard, for a write that races a writer the keyed queue
 * does not order (the delivery worker and an API request on one subscription,
 * a claim and a cancel of one export): on a write-write conflict the loser runs
 * again, up to `attempts` times, 10 ms × attempt apart. Only for writes that are
 * safe to re-run: each re-checks its own condition (a fence, a status) in SQL.
 * PostgreSQL waits for the row lock instead, so it never sees the conflict.
 */
export async function retryOnWriteConflict<T>(write: () => Promise<T>, attempts = 4): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await write();
    } catch (error) {
      if (attempt >= attempts || !isWriteConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10 * attempt));
    }
  }
}
