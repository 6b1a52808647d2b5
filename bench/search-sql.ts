import {
  countMatching,
  filterSql,
  selectPage,
  type CreatorSearchFilters,
  type CreatorSort,
  type SearchSource,
} from '../data/creators/creator-search.queries.js';
import type { Store } from '../data/store.js';

/**
 * A search's first page (20 rows and one to tell whether more follow) and its
 * count, run straight on the store as the service runs them uncached: the
 * reference the benches hold the HTTP figures against.
 */
export async function searchSql(
  store: Store,
  filters: CreatorSearchFilters,
  sort: CreatorSort,
  source: SearchSource,
): Promise<void> {
  const where = filterSql(filters, source);
  await Promise.all([selectPage(store, source, where, sort, null, 21), countMatching(store, source, where)]);
}
