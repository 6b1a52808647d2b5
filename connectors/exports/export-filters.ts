import {
  filterSql,
  sortExpression,
  type CreatorSearchFilters,
  type CreatorSort,
} from '../../data/creators/creator-search.queries.js';
import { checkFilterRules } from '../../data/creators/creator-search.service.js';
import { searchContext, type SearchContext } from '../../data/creators/search-context.js';
import { ExclusionResolver } from '../../data/creators/search-exclusion.js';
import { SearchFiltersSchema, toSearchFilters, toSort } from '../../data/creators/search-filters.js';
import { DomainError, ValidationError } from '../../data/errors.js';
import type { StateQueryable } from '../../data/state/state-db.js';
import type { SqlValue } from '../../data/store.js';

/**
 * An export's `filters` are the search parameters (as strings, the way a search
 * URL carries them), read by the search's own schema (data/creators/search-filters.ts)
 * and turned into SQL by the search's own builder (data/creators/creator-search.queries.ts),
 * so an export of a search holds exactly the creators the search finds, and a
 * filter the search refuses is refused here too.
 */
/** Validated filters and the order of the export. */
export interface ParsedSearch {
  filters: CreatorSearchFilters;
  sort: CreatorSort;
}

/** Validates stringified filters; every offending one is named in one 400 (`filters.<name>`). */
export function parseSearchFilters(raw: Record<string, string>): ParsedSearch {
  const parsed = SearchFiltersSchema.safeParse(raw);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) =>
      i.code === 'unrecognized_keys'
        ? { field: `filters.${i.keys.join(', ')}`, message: 'unknown search parameter' }
        : { field: `filters.${String(i.path[0] ?? '')}`, message: i.message },
    );
    throw new ValidationError(
      `invalid filters: ${errors.map((e) => `${e.field} (${e.message})`).join('; ')}`,
      errors,
      'body',
    );
  }
  const { sort, ...rest } = parsed.data;
  const filters = toSearchFilters(rest);
  try {
    checkFilterRules(filters);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const errors = error.errors.map((e) => ({ field: `filters.${e.param ?? e.field ?? ''}`, message: e.message }));
    throw new ValidationError(error.message, errors, 'body');
  }
  return { filters, sort: toSort(sort) };
}

/**
 * What the export's search needs besides its filters, as the search itself
 * resolves it: `now` (when the export was asked for: `last_posted_days_max`
 * counts back from it) and the members of the `exclude_list` lists, read from
 * the service state. A list that is not the account's is a 400 naming
 * `filters.exclude_list`.
 */
export async function searchContextFor(
  state: StateQueryable,
  accountId: string,
  search: ParsedSearch,
  now: number,
): Promise<SearchContext> {
  if (!search.filters.exclude_list) return searchContext(now);
  try {
    return searchContext(now, await new ExclusionResolver(state).resolve(accountId, search.filters.exclude_list));
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(
      `invalid filters: ${error.message}`,
      error.errors.map((e) => ({ field: 'filters.exclude_list', message: e.message })),
      'body',
    );
  }
}

/**
 * WHERE over `creators` (unaliased, as the search builds it), its parameters, and ORDER BY with a unique tiebreak.
 * `context` from `searchContextFor` (needed when the filters name exclude_list).
 */
export function searchSql(
  search: ParsedSearch,
  context: SearchContext = searchContext(Date.now()),
): { where: string; params: SqlValue[]; orderBy: string } {
  if (search.filters.exclude_list && !context.excluded) {
    // a caller that did not resolve the lists (searchContextFor): refused as a 400, never a half-applied filter
    throw ValidationError.field('filters.exclude_list', 'this export cannot exclude lists');
  }
  const where = filterSql(search.filters, 'creators', context);
  return {
    where: where.sql,
    params: where.params,
    orderBy: `${sortExpression(search.sort)} ${search.sort.descending ? 'DESC' : 'ASC'}, c.creator_id`,
  };
}
