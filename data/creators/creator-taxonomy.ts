/**
 * Search sort keys (docs/search.md); `-key` sorts descending. Each maps to a `creators` column
 * (`price`: `price_post_usd`, the mid estimate of a `post`).
 */
export const SORT_KEYS = ['followers', 'engagement_rate', 'growth_30d', 'authenticity_score', 'price'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/** Audience gender keys and age ranges (docs/data-formats.md). */
export const GENDERS = ['female', 'male', 'other'] as const;
export const AGE_RANGES = ['13-17', '18-24', '25-34', '35-44', '45-54', '55-64', '65+'] as const;

/** Authenticity verdicts (docs/authenticity.md): authentic ≥ 80, questionable 60–79, suspicious < 60. */
export const VERDICTS = ['authentic', 'questionable', 'suspicious'] as const;

/**
 * Bounds of the numeric search filters, shared by GET /v1/creators/search and
 * export filters so both refuse the same values. Finite on purpose: a value past
 * them matches nothing anyway and would only test the database's number types.
 */
export const SEARCH_BOUNDS = {
  /** Follower counts. */
  followers: { min: 0, max: 1e12 },
  /** Engagement rate, audience share and authenticity score, percent or 0–100 points. */
  percent: { min: 0, max: 100 },
  /** Follower growth over 30 days, percent: −100 (all lost) up to 1,000,000 (growth can be large, never infinite). */
  growth: { min: -100, max: 1e6 },
  /** Average views (per post, per reel). */
  views: { min: 0, max: 1e12 },
  /** Days back from the request (posts are kept for 365 days; more is allowed and means "any stored post"). */
  days: { min: 0, max: 3650 },
  /** A price per post, USD (a billion is past any estimate). */
  price: { min: 0, max: 1e9 },
} as const;
