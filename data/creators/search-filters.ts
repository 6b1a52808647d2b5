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

/** An optional decimal filter within the search's `bounds` for that figure. */
const decimalIn = (bounds: { min: number; max: number }, description: string) =>
  decimalText(bounds.min, bounds.max, description).optional();
/** An optional whole-number filter within the search's `bounds` for that figure. */
const integerIn = (bounds: { min: number; max: number }, description: string) =>
  integerText(bounds.min, bounds.max, description).optional();
/** An optional lower bound on a share of the audience, percent: "At least this percent of the audience <what>". */
const audienceMinPct = (what: string) => decimalIn(P, `At least this percent of the audience ${what}`);

/** Every search filter as a zod shape (spread into a query or body schema). */
export const SEARCH_FILTER_PARAMS = {
  niche: csvEnum(NICHES).optional(),
  country: countryParam.optional().describe('Creator location, ISO 3166-1 alpha-2'),
  followers_min: integerIn(F, 'Followers, inclusive lower bound'),
  followers_max: integerIn(F, 'Followers, inclusive upper bound'),
  platform: csvEnum(PLATFORMS).optional(),
  engagement_min: decimalIn(P, 'Engagement rate lower bound, percent'),
  engagement_max: decimalIn(P, 'Engagement rate upper bound, percent'),
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
  audience_country_min_pct: audienceMinPct('in audience_country'),
  verified: boolParam.optional(),
  growth_30d_min: decimalIn(G, 'Follower growth over 30 days, percent (may be negative)'),
  authenticity_min: decimalIn(P, 'Minimum authenticity score'),
  price_max: decimalIn(
    USD,
    'Price per post, inclusive upper bound: the mid estimate of a `post`, USD; creators without an estimate never match',
  ),
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
  last_posted_days_max: integerIn(D, 'The newest stored post is at most this many days old'),
  avg_views_min: decimalIn(V, 'Average views per post, inclusive lower bound'),
  reels_views_min: decimalIn(V, 'Average views of the creator’s reel and short posts, inclusive lower bound'),
  audience_gender: z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .pipe(z.enum(GENDERS))
    .optional()
    .describe(`Audience gender: ${GENDERS.join(', ')}`),
  audience_gender_min_pct: audienceMinPct('of audience_gender (without it: any share above 0)'),
  audience_age: csvEnum(AGE_RANGES)
    .transform((ranges) => AGE_RANGES.filter((r) => ranges.includes(r)))
    .optional()
    .describe(`One or a comma list of audience age ranges: ${AGE_RANGES.join(', ')}`),
  audience_age_min_pct: audienceMinPct('in the audience_age ranges, summed'),
  audience_language: languageParam.optional().describe('Audience language, ISO 639-1'),
  audience_language_min_pct: audienceMinPct('speaking audience_language'),
  audience_interest: z
    .string()
    .transform((s) => s.trim().toLowerCase())
    .refine(
      (s) => /^[\p{L}\p{N}_&' -]{1,50}$/u.test(s),
      "must be an interest name like fitness (letters, digits, spaces, _ & ' -; 1–50)",
    )
    .optional()
    .describe('Audience interest, by name (any case), e.g. fitness'),
  audience_interest_min_pct: audienceMinPct('interested in audience_interest'),
  audience_real_min_pct: audienceMinPct('judged real (quality class real)'),
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
