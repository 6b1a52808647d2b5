/**
 * The Creator item of docs/search.md — the shape search results, list members,
 * exports' default columns and `creator.updated` events all share.
 */
export interface CreatorItem {
  handle: string;
  platform: string;
  display_name: string | null;
  niche: string;
  country: string | null;
  followers: number;
  engagement_rate: number | null;
  audience_us_pct: number | null;
  verified: boolean;
}

/** The `creators` columns a Creator item is built from, for SELECT lists. */
export const CREATOR_ITEM_COLUMNS = [
  'handle',
  'platform',
  'display_name',
  'niche',
  'country',
  'followers',
  'engagement_rate',
  'audience_us_pct',
  'verified',
] as const;

/** Maps a `creators` row (at least CREATOR_ITEM_COLUMNS) to the API's Creator item. */
export function toCreatorItem(row: Record<string, unknown>): CreatorItem {
  return {
    handle: String(row['handle']),
    platform: String(row['platform']),
    display_name: (row['display_name'] as string | null) ?? null,
    niche: String(row['niche']),
    country: (row['country'] as string | null) ?? null,
    followers: Number(row['followers']),
    engagement_rate: numberOrNull(row['engagement_rate']),
    audience_us_pct: numberOrNull(row['audience_us_pct']),
    verified: Boolean(row['verified']),
  };
}

function numberOrNull(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}
