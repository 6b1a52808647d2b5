import { z } from 'zod';
import { decimalText, integerText } from '../number-text.js';
import { boolParam, countryParam, csvEnum, languageParam } from '../param-text.js';
import { NICHES, PLATFORMS } from '../seed/reference-data.js';
import type { CreatorSearchFilters, CreatorSort } from './creator-search.queries.js';
import { SEARCH_BOUNDS, SORT_KEYS, type SortKey } from './creator-taxonomy.js';

/**
 * The creator search's filters, in one place: GET /v1/creators/search takes
 * them as query parameters, `POST /v1/exports` with `source: search` as its
 * `filters`, and the OpenAPI document describes both from this schema. Each
 * value is text (as a URL carries it) and is read the same way everywhere:
 * lists and codes in any case, unassigned country and language codes refused,
 * numbers in plain decimal notation within the search's bounds.
 */
const { followers: F, percent: P, growth: G } = SEARCH_BOUNDS;

/** Every search filter as a zod shape (spread into a query or body schema). */
export const SEARCH_FILTER_PARAMS = {
  niche: csvEnum(NICHES).optional(),
  country: countryParam.optional().describe('Creator location, ISO 3166-1 alpha-2'),
  followers_min: integerText(F.min, F.max, 'Followers, inclusive lower bound').optional(),
  followers_max: integerText(F.min, F.max, 'Followers, inclusive upper bound').optional(),
  platform: csvEnum(PLATFORMS).optional(),
  engagement_min: decimalText(P.min, P.max, 'Engagement rate lower bound, percent').optional(),
  engagement_max: decimalText(P.min, P.max, 'Engagement rate upper bound, percent').optional(),
  city: z.string().trim().min(1).max(100).transform((s) => s.toLowerCase()).optional()
    .describe('Creator city (case-insensitive exact name)'),
  language: languageParam.optional(),
  audience_country: countryParam.optional().describe('Audience country, ISO 3166-1 alpha-2'),
  audience_country_min_pct: decimalText(P.min, P.max, 'At least this percent of the audience in audience_country').optional(),
  verified: boolParam.optional(),
  growth_30d_min: decimalText(G.min, G.max, 'Follower growth over 30 days, percent (may be negative)').optional(),
  authenticity_min: decimalText(P.min, P.max, 'Minimum authenticity score').optional(),
  q: z.string().trim().min(1).max(200).transform(words).optional()
    .describe('Words to find in handle, display name or bio (all must appear)'),
};

/** The filter names, in the order the OpenAPI document lists them. */
export const SEARCH_FILTER_NAMES = Object.keys(SEARCH_FILTER_PARAMS) as Array<keyof typeof SEARCH_FILTER_PARAMS>;

const SORT_VALUES = SORT_KEYS.flatMap((k) => [k, `-${k}`]) as [string, ...string[]];

/** `sort`: a sort key, `-` in front for descending. */
export const SortParam = z.enum(SORT_VALUES).default('-followers').describe('Sort key; prefix - for descending');

/** The filters and sort as an export stores them; unknown names are refused. */
export const SearchFiltersSchema = z.strictObject({ ...SEARCH_FILTER_PARAMS, sort: SortParam });

/** What the filter shape parses to. */
export type SearchFilterValues = z.output<z.ZodObject<typeof SEARCH_FILTER_PARAMS>>;

/** Parsed filters → the search's filter object, without the filters left out. */
export function toSearchFilters(values: Partial<SearchFilterValues>): CreatorSearchFilters {
  const filters: Record<string, unknown> = {};
  for (const name of SEARCH_FILTER_NAMES) if (values[name] !== undefined) filters[name] = values[name];
  return filters as CreatorSearchFilters;
}

/** A `sort` value → the search's sort. */
export function toSort(sort: string): CreatorSort {
  return { key: sort.replace(/^-/, '') as SortKey, descending: sort.startsWith('-') };
}

/** `q` → its distinct lower-case words. */
function words(q: string): string[] {
  return [...new Set(q.toLowerCase().split(/\s+/).filter((w) => w.length > 0))];
}
