import { z } from 'zod';
import { SEARCH_BOUNDS, SORT_KEYS } from '../../data/creators/creator-taxonomy.js';
import { NICHES, PLATFORMS } from '../../data/seed/reference-data.js';
import { cursorParam, limitParam } from '../http/pagination.js';
import { boolParam, countryParam, csvEnum, intParam, languageParam, numberParam } from '../http/query-params.js';

const { followers: F, percent: P, growth: G } = SEARCH_BOUNDS;
const SORT_VALUES = SORT_KEYS.flatMap((k) => [k, `-${k}`]) as [string, ...string[]];

/** GET /v1/creators/search query parameters. */
export const SearchQuery = z.object({
  niche: csvEnum(NICHES).optional(),
  country: countryParam.optional().describe('Creator location, ISO 3166-1 alpha-2'),
  followers_min: intParam(F.min, F.max, 'Followers, inclusive lower bound').optional(),
  followers_max: intParam(F.min, F.max, 'Followers, inclusive upper bound').optional(),
  platform: csvEnum(PLATFORMS).optional(),
  engagement_min: numberParam(P.min, P.max, 'Engagement rate lower bound, percent').optional(),
  engagement_max: numberParam(P.min, P.max, 'Engagement rate upper bound, percent').optional(),
  city: z.string().trim().min(1).max(100).optional().describe('Creator city (case-insensitive exact name)'),
  language: languageParam.optional(),
  audience_country: countryParam.optional().describe('Audience country, ISO 3166-1 alpha-2'),
  audience_country_min_pct: numberParam(P.min, P.max, 'At least this percent of the audience in audience_country').optional(),
  verified: boolParam.optional(),
  growth_30d_min: numberParam(G.min, G.max, 'Follower growth over 30 days, percent (may be negative)').optional(),
  authenticity_min: numberParam(P.min, P.max, 'Minimum authenticity score').optional(),
  q: z.string().trim().min(1).max(200).optional().describe('Words to find in handle, display name or bio (all must appear)'),
  sort: z.enum(SORT_VALUES).default('-followers').describe('Sort key; prefix - for descending'),
  limit: limitParam,
  cursor: cursorParam,
});

export const CreatorItemSchema = z.object({
  handle: z.string().describe('Lower case with a leading @'),
  platform: z.enum(PLATFORMS),
  display_name: z.string().nullable(),
  niche: z.string(),
  country: z.string().nullable(),
  followers: z.number().int(),
  engagement_rate: z.number().nullable().describe('Percent 0–100'),
  audience_us_pct: z.number().nullable().describe('Percent 0–100'),
  verified: z.boolean(),
});

export const SearchResponse = z.object({
  results: z.number().int().describe('Total creators matching the filters'),
  creators: z.array(CreatorItemSchema),
  next_cursor: z.string().nullable(),
});

export const ProfileParams = z.object({ handle: z.string().describe('`@name`, `%40name` or `name`, any case') });
export const ProfileQuery = z.object({ platform: z.enum(PLATFORMS).optional().describe('Needed when the handle exists on several platforms') });

const pct = z.number().nullable();
export const ProfileSchema = CreatorItemSchema.extend({
  bio: z.string().nullable(), city: z.string().nullable(), language: z.string().nullable(),
  following: z.number().int().nullable(), posts_count: z.number().int().nullable(),
  avg_likes: z.number().nullable(), avg_comments: z.number().nullable(), avg_views: z.number().nullable(),
  audience: z.object({
    countries: z.array(z.object({ code: z.string(), pct: z.number() })),
    cities: z.array(z.object({ name: z.string(), country: z.string().nullable(), pct: z.number() })),
    genders: z.array(z.object({ gender: z.string(), pct: z.number() })),
    ages: z.array(z.object({ range: z.string(), pct: z.number() })),
    languages: z.array(z.object({ code: z.string(), pct: z.number() })),
    interests: z.array(z.object({ name: z.string(), pct: z.number() })),
    quality: z.object({ real_pct: pct, suspicious_pct: pct, mass_followers_pct: pct, influencers_pct: pct }),
  }),
  growth: z.object({
    followers_7d: z.number().int().nullable(), followers_30d: z.number().int().nullable(), followers_90d: z.number().int().nullable(),
    followers_7d_pct: pct, followers_30d_pct: pct, followers_90d_pct: pct,
    history: z.array(z.object({ date: z.iso.date(), followers: z.number().int(), engagement_rate: pct })).describe('Daily, last 365 days'),
  }),
  authenticity: z.object({ score: pct, fake_followers_pct: pct, verdict: z.string().nullable(), checked_at: z.string().nullable() }),
  recent_posts: z.array(z.object({
    post_id: z.string(), posted_at: z.string(), type: z.string(), likes: z.number().int(), comments: z.number().int(),
    views: z.number().int().nullable(), shares: z.number().int().nullable(), sponsored: z.boolean(),
  })).describe('The last 12 posts'),
  data_as_of: z.object({ profile: z.string().nullable(), audience: z.string().nullable(), posts: z.string().nullable() }),
  updated_at: z.string(),
});
