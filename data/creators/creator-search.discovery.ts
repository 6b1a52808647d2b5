import type { SqlValue } from '../store.js';
import { CONTENT_FILTERS } from './content-filters.js';
import type { CreatorSearchFilters } from './creator-search.types.js';
import { postedSinceUs, type SearchContext } from './search-context.js';

type Add = (sql: string, ...values: SqlValue[]) => void;

/** The filters read from columns only `creators` holds (the projection has none of them). */
const CREATORS_ONLY: ReadonlyArray<keyof CreatorSearchFilters> = [
  ...CONTENT_FILTERS,
  'price_max',
  'has_contact',
  'also_on',
];

/** Whether the search reads a column of `creators` the sorted projection lacks (it then reads `creators`). */
export function needsCreatorsTable(f: CreatorSearchFilters): boolean {
  return CREATORS_ONLY.some((name) => f[name] !== undefined);
}

/**
 * The content, audience and list filters as WHERE conditions (appended through
 * `add`, every value bound). List filters are semi-joins on creator_content
 * (no row: every list empty); audience filters are semi-joins on the audience table, a
 * creator matching a key by its largest share.
 */
export function discoverySql(f: CreatorSearchFilters, context: SearchContext, add: Add): void {
  if (f.hashtags) addAnyOf('hashtags', f.hashtags, add);
  if (f.mentions) addAnyOf('mentions', f.mentions, add);
  if (f.brands) addAnyOf('brands', f.brands, add);
  if (f.also_on) addAnyOf('linked_platforms', f.also_on, add);
  if (f.has_sponsored_posts !== undefined) add('(coalesce(sponsored_posts, 0) > 0) = ?', f.has_sponsored_posts);
  if (f.has_contact !== undefined) add('coalesce(has_contact, false) = ?', f.has_contact);
  for (const word of f.keywords ?? []) {
    add(
      'creator_id IN (SELECT creator_id FROM creator_content WHERE len(list_filter(caption_words, lambda w: starts_with(w, ?::VARCHAR))) > 0)',
      word,
    );
  }
  if (f.last_posted_days_max !== undefined) {
    add('last_posted_at >= make_timestamp(?::BIGINT)', postedSinceUs(f.last_posted_days_max, context.now));
  }
  if (f.avg_views_min !== undefined) add('avg_views >= ?::DOUBLE', f.avg_views_min);
  if (f.reels_views_min !== undefined) add('reels_avg_views >= ?::DOUBLE', f.reels_views_min);
  if (f.audience_gender) addShare('gender', f.audience_gender, f.audience_gender_min_pct, add);
  if (f.audience_language) addShare('language', f.audience_language, f.audience_language_min_pct, add);
  if (f.audience_interest) addShare('interest', f.audience_interest, f.audience_interest_min_pct, add);
  if (f.audience_real_min_pct !== undefined) addShare('quality', 'real', f.audience_real_min_pct, add);
  if (f.audience_age) addAgeShare(f.audience_age, f.audience_age_min_pct, add);
  if (f.exclude_list) {
    if (!context.excluded) throw new Error('exclude_list needs its members in the search context');
    add('creator_id NOT IN (SELECT unnest(?::INTEGER[]))', Array.from(context.excluded.creatorIds));
  }
}

/**
 * The content list (creator_content) holds one of the values: list_contains per value (2–3x faster than
 * list_has_any over 1M rows). A creator without a content row has every list empty.
 */
function addAnyOf(column: string, values: readonly string[], add: Add): void {
  add(
    `creator_id IN (SELECT creator_id FROM creator_content WHERE ${values.map(() => `list_contains(${column}, ?::VARCHAR)`).join(' OR ')})`,
    ...values,
  );
}

/** One audience key's share at least `minPct` (without it: above 0). */
function addShare(dimension: string, key: string, minPct: number | undefined, add: Add): void {
  add(
    `creator_id IN (SELECT creator_id FROM audience WHERE dimension = ? AND key = ? AND pct >= ?::DOUBLE${minPct === undefined ? ' AND pct > 0' : ''})`,
    dimension,
    key,
    minPct ?? 0,
  );
}

/**
 * The listed age ranges' shares summed (each range by its largest share), at
 * least `minPct` (without it: above 0). The sum is written out term by term, in
 * the ranges' canonical order, so it is the same double the index adds up.
 */
function addAgeShare(ranges: readonly string[], minPct: number | undefined, add: Add): void {
  const terms = ranges.map(() => 'coalesce(max(pct) FILTER (WHERE key = ?), 0)').join(' + ');
  add(
    `creator_id IN (SELECT creator_id FROM audience WHERE dimension = 'age' AND key IN (${ranges.map(() => '?').join(', ')})
    GROUP BY creator_id HAVING (${terms}) ${minPct === undefined ? '> 0' : '>= ?::DOUBLE'})`,
    ...ranges,
    ...ranges,
    ...(minPct === undefined ? [] : [minPct]),
  );
}
