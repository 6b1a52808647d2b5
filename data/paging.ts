/**
 * Keyset paging below the HTTP layer: a query reads `limit + 1` rows after a
 * key, and `takePage` keeps `limit` of them and the key the next page starts
 * after. The server turns that key into an opaque cursor (server/http/keyset-page.ts).
 */

/** One page of items and the key of its last row when more follow (null on the last page). */
export interface KeyedPage<T, K> {
  data: T[];
  next: K | null;
}

/**
 * The page in a `limit + 1` row read: the first `limit` rows (mapped by `item`)
 * and, when the extra row shows that more follow, the key of the last row kept.
 */
export function takePage<R, K, T = R>(
  rows: readonly R[],
  limit: number,
  keyOf: (row: R) => K,
  item?: (row: R) => T,
): KeyedPage<T, K> {
  const kept = rows.slice(0, limit);
  const last = rows.length > limit ? kept.at(-1) : undefined;
  return {
    data: item ? kept.map((row) => item(row)) : (kept as unknown as T[]),
    next: last === undefined ? null : keyOf(last),
  };
}
