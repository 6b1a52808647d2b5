/** The value of `key` in a cache kept in use order (`build` makes it when absent), the least used past `limit` dropped. */
export function recent<K, V>(cache: Map<K, V>, key: K, limit: number, build: () => V): V {
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const built = build();
  cache.set(key, built);
  if (cache.size > limit) cache.delete(cache.keys().next().value!);
  return built;
}

/** How many bit arrays over `size` positions fit in about `megabytes`, at least 16 (the caches' bound). */
export function bitArraysWithin(megabytes: number, size: number): number {
  return Math.max(16, Math.floor((megabytes * 1024 * 1024) / Math.max(1, size / 8)));
}
