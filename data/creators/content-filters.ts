/**
 * The search filters read from what a creator posts (docs/search.md): its stored
 * posts' tags, mentions, brands, captions and views. The search reads them from
 * `creators`, which the sorted projection lacks; the console groups them as Content.
 */
export const CONTENT_FILTERS = [
  'hashtags',
  'mentions',
  'brands',
  'has_sponsored_posts',
  'keywords',
  'last_posted_days_max',
  'avg_views_min',
  'reels_views_min',
] as const;
