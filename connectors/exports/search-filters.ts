import { z } from 'zod';
import { filterSql, sortExpression, type CreatorSearchFilters, type CreatorSort } from '../../data/creators/creator-search.queries.js';
import { checkFilterRules } from '../../data/creators/creator-search.service.js';
import { SEARCH_BOUNDS, SORT_KEYS, type SortKey } from '../../data/creators/creator-taxonomy.js';
import { DomainError, ValidationError } from '../../data/errors.js';
import { decimalText, integerText } from '../../data/number-text.js';
import { NICHES, PLATFORMS } from '../../data/seed/reference-data.js';
import type { SqlValue } from '../../data/store.js';

/**
 * An export's `filters`: the search parameters (as strings, the
 * way a search URL carries them). They are validated here, then turned into SQL
 * by the API search's own builder (data/creators/creator-search.queries.ts), so
 * an export of a search holds exactly the creators the search finds. Numbers
 * have the search's bounds and its strict format (data/number-text.ts).
 */
const commaList = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.string().transform((s) => s.split(',').map((p) => p.trim()).filter((p) => p.length > 0)).pipe(z.array(z.enum(values)).min(1));
const { followers: F, percent: P, growth: G } = SEARCH_BOUNDS;
const code2 = (what: string) => z.string().regex(/^[A-Za-z]{2}$/, what);

export const SearchFiltersSchema = z.strictObject({
  niche: commaList(NICHES).optional(),
  country: code2('an ISO 3166-1 alpha-2 code').transform((s) => s.toUpperCase()).optional(),
  followers_min: integerText(F.min, F.max).optional(),
  followers_max: integerText(F.min, F.max).optional(),
  platform: commaList(PLATFORMS).optional(),
  engagement_min: decimalText(P.min, P.max).optional(),
  engagement_max: decimalText(P.min, P.max).optional(),
  city: z.string().trim().min(1).max(100).transform((s) => s.toLowerCase()).optional(),
  language: code2('an ISO 639-1 code').transform((s) => s.toLowerCase()).optional(),
  audience_country: code2('an ISO 3166-1 alpha-2 code').transform((s) => s.toUpperCase()).optional(),
  audience_country_min_pct: decimalText(P.min, P.max).optional(),
  verified: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
  growth_30d_min: decimalText(G.min, G.max).optional(),
  authenticity_min: decimalText(P.min, P.max).optional(),
  q: z.string().trim().min(1).max(200).transform((s) => [...new Set(s.toLowerCase().split(/\s+/).filter((w) => w.length > 0))]).optional(),
  sort: z.enum(SORT_KEYS.flatMap((k) => [k, `-${k}`]) as [string, ...string[]]).optional(),
});

/** Validated filters and the order of the export. */
export interface ParsedSearch {
  filters: CreatorSearchFilters;
  sort: CreatorSort;
}

/** Validates stringified filters; every offending one is named in one 400 (`filters.<name>`). */
export function parseSearchFilters(raw: Record<string, string>): ParsedSearch {
  const parsed = SearchFiltersSchema.safeParse(raw);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => i.code === 'unrecognized_keys'
      ? { field: `filters.${i.keys.join(', ')}`, message: 'unknown search parameter' }
      : { field: `filters.${String(i.path[0] ?? '')}`, message: i.message });
    throw new ValidationError(`invalid filters: ${errors.map((e) => `${e.field} (${e.message})`).join('; ')}`, errors, 'body');
  }
  const { sort = '-followers', ...rest } = parsed.data;
  const filters = Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)) as CreatorSearchFilters;
  try {
    checkFilterRules(filters);
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    const errors = error.errors.map((e) => ({ field: `filters.${e.param ?? e.field ?? ''}`, message: e.message }));
    throw new ValidationError(error.message, errors, 'body');
  }
  return { filters, sort: { key: sort.replace(/^-/, '') as SortKey, descending: sort.startsWith('-') } };
}

/** WHERE over `creators` (unaliased, as the search builds it), its parameters, and ORDER BY with a unique tiebreak. */
export function searchSql(search: ParsedSearch): { where: string; params: SqlValue[]; orderBy: string } {
  const where = filterSql(search.filters);
  return {
    where: where.sql,
    params: where.params,
    orderBy: `${sortExpression(search.sort)} ${search.sort.descending ? 'DESC' : 'ASC'}, c.creator_id`,
  };
}
