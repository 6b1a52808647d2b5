import { z } from 'zod';
import { decimalText, integerText } from '../number-text.js';
import { boolParam, countryParam, csvEnum, languageParam, termListParam, wordsOf } from '../param-text.js';
import { NICHES, PLATFORMS } from '../reference/taxonomy.js';
import type { CreatorSearchFilters, CreatorSort } from './creator-search.queries.js';
import { AGE_RANGES, GENDERS, SEARCH_BOUNDS, SORT_KEYS, type SortKey } from './creator-taxonomy.js';

/**
 * The creator search's filters, in one place: GET /v1/creators/search takes
 * them as query parameters, `POST /v1/exports` with `source: search` as its
 * `filters`, and the OpenAPI document describes both from this schema. Each
 * value is text (as a URL carries it) and is read the same way everywhere:
 * lists and codes in any case, unassigned country and language codes refused,
 * numbers in plain decimal notation within the search's bounds.
 */
/** How many lists `exclude_list` may name. */
export const MAX_EXCLUDED_LISTS = 5;

const { followers: F, percent: P, growth: G, views: V, days: D, price: USD } = SEARCH_BOUNDS;

/** Every search filter as a zod shape (spread into a query or body schema). */
export const SEARCH_FILTER_PARAMS = {
  niche: csvEnum(NICHES).optional(),
  country: countryParam.optional().describe('Creator location, ISO 3166-1 alpha-2'),
  followers_min: integerText(F.min, F.max, 'Followers, inclusive lower bound').optional(),
  followers_max: integerText(F.min, F.max, 'Followers, inclusive upper bound').optional(),
  platform: csvEnum(PLATFORMS).optional(),
  engagement_min: decimalText(P.min, P.max, 'Engagement rate lower bound, percent').optional(),
  engagement_max: decimalText(P.min, P.max, 'Engagement rate upper bound, percent').optional(),
  city: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .transform((s) => s.toLowerCase())
    .optional()
    .describe('Creator city (case-insensitive exact name)'),
  language: languageParam.optional(),
  audience_country: countryParam.optional().describe('Audience country, ISO 3166-1 alpha-2'),
  audience_country_min_pct: decimalText(
    P.min,
    P.max,
    'At least this percent of the audience in audience_country',
  ).optional(),
  verified: boolParam.optional(),
  growth_30d_min: decimalText(G.min, G.max, 'Follower growth over 30 days, percent (may be negative)').optional(),
  authenticity_min: decimalText(P.min, P.max, 'Minimum authenticity score').optional(),
  price_max: decimalText(
    USD.min,
    USD.max,
    'Price per post, inclusive upper bound: the mid estimate of a `post`, USD; creators without an estimate never match',
  ).optional(),
  q: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .transform(words)
    .optional()
    .describe('Words to find in handle, display name or bio (all must appear)'),
  hashtags: termListParam('#', 'hashtag')
    .optional()
    .describe(
      'One or a comma list of hashtags (# optional, any case): a stored post of the creator carries one of them',
    ),
  mentions: termListParam('@', 'handle')
    .optional()
    .describe(
      'One or a comma list of handles (@ optional, any case): a stored post of the creator mentions one of them',
    ),
  brands: termListParam('@', 'brand handle')
    .optional()
    .transform((v) => v?.map((b) => `@${b}`))
    .describe(
      'One or a comma list of brand handles (@ optional, any case): the creator has a sponsored post for one of them',
    ),
  has_sponsored_posts: boolParam.optional().describe('true: at least one stored sponsored post; false: none'),
  keywords: z
    .string()
    .max(200)
    .transform((s, ctx) => {
      const found = wordsOf(s);
      if (found.length === 0) ctx.addIssue({ code: 'custom', message: 'must hold a word (letters, digits or _)' });
      if (found.length > 10) ctx.addIssue({ code: 'custom', message: 'at most 10 words' });
      return found;
    })
    .optional()
    .describe(
      'Words to find in the creator’s captions, all of them: each must start a caption word (case-insensitive; words are runs of letters, digits and _)',
    ),
  last_posted_days_max: integerText(D.min, D.max, 'The newest stored post is at most this many days old').optional(),
  avg_views_min: decimalText(V.min, V.max, 'Average views per post, inclusive lower bound').optional(),
  reels_views_min: decimalText(
    V.min,
    V.max,
    'Average views of the creator’s reel and short posts, inclusive lower bound',
  ).optional(),
  audience_gender: z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .pipe(z.enum(GENDERS))
    .optional()
    .describe(`Audience gender: ${GENDERS.join(', ')}`),
  audience_gender_min_pct: decimalText(
    P.min,
    P.max,
    'At least this percent of the audience of audience_gender (without it: any share above 0)',
  ).optional(),
  audience_age: csvEnum(AGE_RANGES)
    .transform((ranges) => AGE_RANGES.filter((r) => ranges.includes(r)))
    .optional()
    .describe(`One or a comma list of audience age ranges: ${AGE_RANGES.join(', ')}`),
  audience_age_min_pct: decimalText(
    P.min,
    P.max,
    'At least this percent of the audience in the audience_age ranges, summed',
  ).optional(),
  audience_language: languageParam.optional().describe('Audience language, ISO 639-1'),
  audience_language_min_pct: decimalText(
    P.min,
    P.max,
    'At least this percent of the audience speaking audience_language',
  ).optional(),
  audience_interest: z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .refine(
      (s) => /^[\p{L}\p{N}_&' -]{1,50}$/u.test(s),
      "must be an interest name like fitness (letters, digits, spaces, _ & ' -; 1–50)",
    )
    .optional()
    .describe('Audience interest, by name (any case), e.g. fitness'),
  audience_interest_min_pct: decimalText(
    P.min,
    P.max,
    'At least this percent of the audience interested in audience_interest',
  ).optional(),
  audience_real_min_pct: decimalText(
    P.min,
    P.max,
    'At least this percent of the audience judged real (quality class real)',
  ).optional(),
  exclude_list: z
    .string()
    .transform((s, ctx) => {
      const ids = [
        ...new Set(
          s
            .split(',')
            .map((p) => p.trim().toLowerCase())
            .filter((p) => p.length > 0),
        ),
      ];
      if (ids.length === 0) ctx.addIssue({ code: 'custom', message: 'must not be empty' });
      if (ids.length > MAX_EXCLUDED_LISTS)
        ctx.addIssue({ code: 'custom', message: `at most ${MAX_EXCLUDED_LISTS} lists` });
      const bad = ids.filter((id) => !/^lst_[0-9a-z]{1,40}$/.test(id));
      if (bad.length > 0) ctx.addIssue({ code: 'custom', message: `not a list id (lst_…): ${bad.join(', ')}` });
      return ids;
    })
    .optional()
    .describe(
      `One or a comma list of up to ${MAX_EXCLUDED_LISTS} of your list ids (lst_…): creators on any of them are left out`,
    ),
  has_contact: boolParam.optional().describe('true: a contact email or website is known; false: none is'),
  also_on: csvEnum(PLATFORMS)
    .optional()
    .describe(
      `One or a comma list of platforms (${PLATFORMS.join(', ')}): the creator has a linked account on one of them`,
    ),
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
  return [
    ...new Set(
      q
        .toLowerCase()
        .split(/\s+/)
        .filter((w) => w.length > 0),
    ),
  ];
}
