/**
 * The value of `key` in a cache kept in use order (`build` makes it when absent), the least used past `limit`
 * dropped and handed to `dropped` (which may reuse what it holds: it is the least used, not one just asked for).
 */
export function recent<K, V>(cache: Map<K, V>, key: K, limit: number, build: () => V, dropped?: (value: V) => void): V {
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const built = build();
  cache.set(key, built);
  if (cache.size > limit) {
    const [oldest, value] = cache.entries().next().value!;
    cache.delete(oldest);
    dropped?.(value);
  }
  return built;
}

/** How many bit arrays over `size` positions fit in about `megabytes`, at least 16 (the caches' bound). */
export function bitArraysWithin(megabytes: number, size: number): number {
  return Math.max(16, Math.floor((megabytes * 1024 * 1024) / Math.max(1, size / 8)));
}
