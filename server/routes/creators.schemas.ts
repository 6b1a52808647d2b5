import { z } from 'zod';
import { SEARCH_FILTER_PARAMS, SortParam } from '../../data/creators/search-filters.js';
import { PLATFORMS } from '../../data/reference/taxonomy.js';
import { timestampSchema } from '../../data/timestamps.js';
import { cursorParam, limitParam } from '../http/pagination.js';

/** GET /v1/creators/search query parameters: the search filters (data/creators/search-filters.ts), sort and paging. */
export const SearchQuery = z.object({
  ...SEARCH_FILTER_PARAMS,
  sort: SortParam,
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
export const ProfileQuery = z.object({
  platform: z.enum(PLATFORMS).optional().describe('Needed when the handle exists on several platforms'),
});

const pct = z.number().nullable();

/** The profile's `content` block: what the creator posts about and for whom, from its stored posts. */
const ContentSchema = z
  .object({
    top_hashtags: z
      .array(z.object({ tag: z.string().describe('Lower case, without #'), posts: z.number().int() }))
      .describe('The 10 hashtags on most of its stored posts, most first (ties by tag)'),
    top_mentions: z
      .array(z.object({ handle: z.string().describe('Lower case with a leading @'), posts: z.number().int() }))
      .describe('The 10 handles its stored posts mention most, most first (ties by handle)'),
    brands: z
      .array(
        z.object({
          brand: z.string().describe("The sponsoring brand's handle: @ and lower case"),
          sponsored_posts: z.number().int(),
          last_posted_at: timestampSchema('Its newest sponsored post for the brand').nullable(),
        }),
      )
      .describe('Every brand it posted sponsored content for, most sponsored posts first (ties by brand)'),
    sponsored_pct: pct.describe('Percent of its stored posts that are sponsored; null without posts'),
    engagement_rate_sponsored: pct.describe(
      'Mean (likes + comments) / followers × 100 over its sponsored posts; null without any',
    ),
    engagement_rate_organic: pct.describe('The same over its posts that are not sponsored; null without any'),
    posts_per_week: pct.describe('Posts in the last 90 days per week'),
    last_posted_at: timestampSchema('Its newest stored post').nullable(),
    avg_views_by_type: z
      .record(z.string(), z.number().nullable())
      .describe(
        'Post type (post, reel, short, video, story, live) → average views of its posts of that type; types it never posted are absent',
      ),
  })
  .describe('From the stored posts (the last 365 days), as of data_as_of.posts');
const percentile = z.number().min(0).max(100).nullable();

/** The profile's `benchmarks` block: where the creator stands among its peers (docs/benchmarks.md). */
const BenchmarksSchema = z
  .object({
    peer_group: z
      .object({
        platform: z.enum(PLATFORMS),
        niche: z.string(),
        followers_from: z.number().int().describe("Lowest follower count in the group's band"),
        followers_to: z
          .number()
          .int()
          .nullable()
          .describe('Follower count where the band ends (not included); null: no upper end'),
        creators: z.number().int().describe('Creators in the group'),
      })
      .describe('Platform × niche × follower band; bands are merged until each holds at least 300 creators'),
    engagement_rate: percentile.describe(
      'Percentile 0–100 among the peers with a value: percent_rank × 100, one decimal; null without a value',
    ),
    growth_30d: percentile.describe('The same for growth.followers_30d_pct'),
    avg_views: percentile.describe('The same for avg_views'),
    authenticity_score: percentile.describe('The same for authenticity.score'),
  })
  .nullable()
  .describe("Null only while the creator's derivation has not yet placed it in a peer group");

const usd = z.number().min(0);

/** The profile's `price_estimate` block: what the creator is likely to cost per post (docs/pricing.md). */
const PriceEstimateSchema = z
  .object({
    currency: z.literal('USD'),
    per_type: z
      .array(
        z.object({
          type: z.string().describe('Post type: post, reel, short, video, story or live'),
          low: usd.describe('Low end of the range: about 10 % of prices paid fall below it'),
          mid: usd.describe('The estimate (the median price per post)'),
          high: usd.describe('High end of the range: about 10 % of prices paid fall above it'),
        }),
      )
      .describe('USD per post, one entry per post type the model knows, cheapest first'),
    basis: z
      .enum(['campaigns', 'peers'])
      .describe(
        "campaigns: fitted on recorded campaign spend and shifted toward this creator's own prices; peers: from similar creators' prices (it has none)",
      ),
    observations: z.number().int().min(0).describe("This creator's campaign prices the estimate rests on"),
    confidence: z.enum(['high', 'medium', 'low']).describe('high: 3 or more own prices; medium: 1–2; low: peer-based'),
    model_version: z.string().describe('The pricing model that made it (cds pricing eval measures it)'),
  })
  .nullable()
  .describe(
    "Null until a price model has been fitted; a creator loaded since the last fit gets that model's peer-based estimate",
  );

export const ProfileSchema = CreatorItemSchema.extend({
  bio: z.string().nullable(),
  city: z.string().nullable(),
  language: z.string().nullable(),
  following: z.number().int().nullable(),
  posts_count: z.number().int().nullable(),
  avg_likes: z.number().nullable(),
  avg_comments: z.number().nullable(),
  avg_views: z.number().nullable(),
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
    followers_7d: z.number().int().nullable(),
    followers_30d: z.number().int().nullable(),
    followers_90d: z.number().int().nullable(),
    followers_7d_pct: pct,
    followers_30d_pct: pct,
    followers_90d_pct: pct,
    history: z
      .array(z.object({ date: z.iso.date(), followers: z.number().int(), engagement_rate: pct }))
      .describe('Daily, last 365 days'),
  }),
  authenticity: z.object({
    score: pct,
    fake_followers_pct: pct,
    verdict: z.string().nullable(),
    checked_at: timestampSchema('When the score was computed').nullable(),
  }),
  recent_posts: z
    .array(
      z.object({
        post_id: z.string(),
        posted_at: timestampSchema('When it was posted'),
        type: z.string(),
        likes: z.number().int(),
        comments: z.number().int(),
        views: z.number().int().nullable(),
        shares: z.number().int().nullable(),
        sponsored: z.boolean(),
      }),
    )
    .describe('The last 12 posts'),
  content: ContentSchema,
  linked_accounts: z
    .array(z.object({ platform: z.enum(PLATFORMS), handle: z.string() }))
    .describe("The creator's accounts on other platforms, by platform then handle"),
  benchmarks: BenchmarksSchema,
  price_estimate: PriceEstimateSchema,
  has_contact: z
    .boolean()
    .describe(
      'A contact email or website is on record; GET /v1/creators/{handle}/contacts reveals it (scope contacts:read)',
    ),
  data_as_of: z.object({
    profile: timestampSchema("The profile data's time").nullable(),
    audience: timestampSchema("The audience data's time").nullable(),
    posts: timestampSchema("The posts data's time").nullable(),
  }),
  updated_at: timestampSchema('When the creator row last changed'),
});
