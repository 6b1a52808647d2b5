import type { SortKey } from './creator-taxonomy.js';

/** Validated search filters, already normalised (upper-case codes, lower-case text). */
export interface CreatorSearchFilters {
  niche?: readonly string[];
  country?: string;
  followers_min?: number;
  followers_max?: number;
  platform?: readonly string[];
  engagement_min?: number;
  engagement_max?: number;
  city?: string;
  language?: string;
  audience_country?: string;
  audience_country_min_pct?: number;
  verified?: boolean;
  growth_30d_min?: number;
  authenticity_min?: number;
  /** The mid estimate of a `post`, USD, at most this; a creator without an estimate never matches. */
  price_max?: number;
  /** Words that must all appear in handle, display name or bio. */
  q?: readonly string[];
  /** Lower case, without '#'. */
  hashtags?: readonly string[];
  /** Lower case, without '@'. */
  mentions?: readonly string[];
  /** '@' + lower case. */
  brands?: readonly string[];
  has_sponsored_posts?: boolean;
  /** Lower-case words; each must start one of the creator's caption words. */
  keywords?: readonly string[];
  last_posted_days_max?: number;
  avg_views_min?: number;
  reels_views_min?: number;
  audience_gender?: string;
  audience_gender_min_pct?: number;
  /** Age ranges in their canonical order (the order their shares are summed in). */
  audience_age?: readonly string[];
  audience_age_min_pct?: number;
  audience_language?: string;
  audience_language_min_pct?: number;
  audience_interest?: string;
  audience_interest_min_pct?: number;
  audience_real_min_pct?: number;
  /** List ids; the service resolves their members into the search context. */
  exclude_list?: readonly string[];
  has_contact?: boolean;
  also_on?: readonly string[];
}

export interface CreatorSort {
  key: SortKey;
  descending: boolean;
}
