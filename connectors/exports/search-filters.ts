import { z } from 'zod';
import { ValidationError } from '../../data/errors.js';
import { NICHES, PLATFORMS } from '../../data/seed/reference-data.js';
import type { SqlValue } from '../../data/store.js';

/**
 * The search parameters of CONTRACT §5 as an export's `filters`, turned into a
 * WHERE clause over `creators c` with bound parameters.
 *
 * This is the export connector's own minimal builder: the API's search query
 * builder was not available when exports were written. Keep the two in step (or
 * replace this with it) — same names, same meanings, same sort keys.
 */
const commaList = <const T extends readonly [string, ...string[]]>(values: T) =>
  z.string().transform((s) => s.split(',').map((p) => p.trim()).filter((p) => p.length > 0)).pipe(z.array(z.enum(values)).min(1));
const num = z.coerce.number().finite();
const SORT_KEYS = ['followers', 'engagement_rate', 'growth_30d', 'authenticity_score'] as const;
const SORT_COLUMNS: Record<(typeof SORT_KEYS)[number], string> = {
  followers: 'c.followers', engagement_rate: 'c.engagement_rate', growth_30d: 'c.growth_30d_pct', authenticity_score: 'c.authenticity_score',
};

export const SearchFiltersSchema = z.strictObject({
  niche: commaList(NICHES).optional(),
  country: z.string().regex(/^[A-Za-z]{2}$/, 'an ISO 3166-1 alpha-2 code').transform((s) => s.toUpperCase()).optional(),
  followers_min: z.coerce.number().int().min(0).optional(),
  followers_max: z.coerce.number().int().min(0).optional(),
  platform: commaList(PLATFORMS).optional(),
  engagement_min: num.min(0).max(100).optional(),
  engagement_max: num.min(0).max(100).optional(),
  city: z.string().min(1).max(100).optional(),
  language: z.string().regex(/^[A-Za-z]{2}$/, 'an ISO 639-1 code').transform((s) => s.toLowerCase()).optional(),
  audience_country: z.string().regex(/^[A-Za-z]{2}$/, 'an ISO 3166-1 alpha-2 code').transform((s) => s.toUpperCase()).optional(),
  audience_country_min_pct: num.min(0).max(100).optional(),
  verified: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
  growth_30d_min: num.optional(),
  authenticity_min: num.min(0).max(100).optional(),
  q: z.string().min(1).max(200).optional(),
  sort: z.string().regex(new RegExp(`^-?(${SORT_KEYS.join('|')})$`), `one of ${SORT_KEYS.join(', ')}, optionally prefixed with -`).optional(),
});
export type SearchFilters = z.infer<typeof SearchFiltersSchema>;

/** A WHERE clause, its parameters and an ORDER BY with a unique tiebreak. */
export interface SearchSql {
  where: string;
  params: SqlValue[];
  orderBy: string;
}

/** Validates stringified filters; every offending one is named in one 400 (`filters.<name>`). */
export function parseSearchFilters(filters: Record<string, string>): SearchFilters {
  const parsed = SearchFiltersSchema.safeParse(filters);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((i) => {
      const name = i.code === 'unrecognized_keys' ? i.keys.join(', ') : String(i.path[0] ?? '');
      return { field: `filters.${name}`, message: i.code === 'unrecognized_keys' ? 'unknown search parameter' : i.message };
    });
    throw new ValidationError(`invalid filters: ${errors.map((e) => e.field).join(', ')}`, errors, 'body');
  }
  const f = parsed.data;
  if (f.followers_min !== undefined && f.followers_max !== undefined && f.followers_min > f.followers_max) {
    throw ValidationError.field('filters.followers_min', 'followers_min must be ≤ followers_max');
  }
  if (f.audience_country_min_pct !== undefined && f.audience_country === undefined) {
    throw ValidationError.field('filters.audience_country_min_pct', 'needs audience_country');
  }
  return f;
}

/** Builds the WHERE clause over `creators c` for validated filters. */
export function searchSql(f: SearchFilters): SearchSql {
  const clauses: string[] = [];
  const params: SqlValue[] = [];
  const add = (sql: string, ...values: SqlValue[]): void => {
    clauses.push(sql);
    params.push(...values);
  };
  if (f.niche) add('c.niche IN (SELECT unnest(?::VARCHAR[]))', f.niche);
  if (f.platform) add('c.platform IN (SELECT unnest(?::VARCHAR[]))', f.platform);
  if (f.country) add('c.country = ?', f.country);
  if (f.city) add('lower(c.city) = lower(?)', f.city);
  if (f.language) add('c.language = ?', f.language);
  if (f.followers_min !== undefined) add('c.followers >= ?', f.followers_min);
  if (f.followers_max !== undefined) add('c.followers <= ?', f.followers_max);
  if (f.engagement_min !== undefined) add('c.engagement_rate >= ?', f.engagement_min);
  if (f.engagement_max !== undefined) add('c.engagement_rate <= ?', f.engagement_max);
  if (f.verified !== undefined) add('c.verified = ?', f.verified);
  if (f.growth_30d_min !== undefined) add('c.growth_30d_pct >= ?', f.growth_30d_min);
  if (f.authenticity_min !== undefined) add('c.authenticity_score >= ?', f.authenticity_min);
  if (f.q) add(`contains(c.search_text, lower(?))`, f.q);
  if (f.audience_country) {
    add(`c.creator_id IN (SELECT creator_id FROM audience WHERE dimension = 'country' AND key = ? AND pct >= ?)`,
      f.audience_country, f.audience_country_min_pct ?? 0);
  }
  return { where: clauses.length > 0 ? clauses.join(' AND ') : 'true', params, orderBy: orderBy(f.sort) };
}

function orderBy(sort: string | undefined): string {
  const key = (sort ?? '-followers').replace(/^-/, '') as (typeof SORT_KEYS)[number];
  const direction = (sort ?? '-followers').startsWith('-') ? 'DESC' : 'ASC';
  return `${SORT_COLUMNS[key]} ${direction} NULLS LAST, c.creator_id`;
}
