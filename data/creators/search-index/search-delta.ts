import type { DuckDBConnection } from '@duckdb/node-api';
import type { Queryable, Store } from '../../store.js';
import type { CreatorItem } from '../creator-item.js';
import { dataVersion, type CreatorSearchFilters, type CreatorSort } from '../creator-search.queries.js';
import { postedSinceUs, type SearchContext } from '../search-context.js';
import { Bitset } from './bitset.js';
import { passesShare } from './discovery-filters.js';
import { eachChunkColumns } from './duckdb-chunks.js';
import { wellFormed } from './text-index.js';
import { contentJoin } from '../../derive/content-metrics.js';

/**
 * A fingerprint of everything a search reads of a creator row and its content
 * lists (31 bits): a changed fingerprint means the creator changed for search.
 * `c` is the creators alias; `CONTENT_FINGERPRINT_JOIN` must follow it (the
 * lists count by their stored fingerprint, not hashed again here).
 */
export function rowFingerprintSql(c: string): string {
  return `(hash(${c}.platform, ${c}.handle, ${c}.display_name, ${c}.niche, ${c}.country, lower(${c}.city), ${c}.language, ${c}.followers,
    ${c}.verified, ${c}.engagement_rate, ${c}.growth_30d_pct, ${c}.authenticity_score, ${c}.audience_us_pct, ${c}.search_text,
    ${c}.avg_views, ${c}.sponsored_posts, ${c}.sponsored_pct, ${c}.engagement_rate_sponsored, ${c}.engagement_rate_organic,
    ${c}.posts_per_week, ${c}.last_posted_at, ${c}.reels_avg_views, ${c}.has_contact, ${c}.price_post_usd,
    coalesce(cfp.fingerprint, 0)) % 2147483647)::INTEGER`;
}

/** The join `rowFingerprintSql` reads the content fingerprint through, after `creators ${c}`. */
export function contentFingerprintJoin(c: string): string {
  return `LEFT JOIN (SELECT creator_id, fingerprint FROM creator_content) cfp ON cfp.creator_id = ${c}.creator_id`;
}

/** The audience dimensions a search filters on (city is not one). */
export const AUDIENCE_DIMENSIONS = ['country', 'gender', 'age', 'language', 'interest', 'quality'] as const;
const DIMENSIONS_SQL = AUDIENCE_DIMENSIONS.map((d) => `'${d}'`).join(', ');

/** Per creator, a fingerprint of its audience shares on every searched dimension; XOR needs no ordering. */
export const AUDIENCE_FINGERPRINTS_SQL = `SELECT creator_id, (bit_xor(hash(dimension, key, pct)) % 2147483647)::INTEGER AS afp
  FROM audience WHERE dimension IN (${DIMENSIONS_SQL}) GROUP BY creator_id`;

/** A creator that changed (or arrived) since the base index was built, with everything a search reads of it. */
export interface DeltaRow {
  creator_id: number;
  platform: string;
  handle: string;
  display_name: string | null;
  niche: string;
  country: string | null;
  city_lc: string | null;
  language: string | null;
  verified: boolean;
  followers: number;
  engagement_rate: number | null;
  growth_30d_pct: number | null;
  authenticity_score: number | null;
  audience_us_pct: number | null;
  search_text: string;
  avg_views: number | null;
  reels_avg_views: number | null;
  /** last_posted_at in epoch µs. */
  last_posted_us: number | null;
  /** The mid estimate of a `post`, USD. */
  price_post_usd: number | null;
  hashtags: readonly string[];
  mentions: readonly string[];
  brands: readonly string[];
  caption_words: readonly string[];
  linked_platforms: readonly string[];
  has_sponsored_posts: boolean;
  has_contact: boolean;
  /** dimension → key → largest share (a creator matches a key by its largest share). */
  audience: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

/** What changed since the base: its positions no longer valid, and the current rows of the changed and new creators. */
export interface SearchDelta {
  version: string;
  /** Base positions whose row changed or was deleted. */
  dead: Bitset;
  rows: readonly DeltaRow[];
}

/** The base's fingerprints, by position, for the comparison. */
export interface BaseFingerprints {
  ids: Int32Array;
  rows: Int32Array;
  audience: Int32Array;
  positionOf(creatorId: number): number;
}

/**
 * The changes since the base was built, read in one transaction: every
 * creator's fingerprints are compared with the base's (one scan of the
 * creators and their audience rows, in DuckDB), then only the changed rows are
 * read. Answers null when more than `maxChanged` creators changed (a rebuild
 * is then cheaper than testing them one by one on every search).
 */
export async function loadSearchDelta(
  store: Store,
  base: BaseFingerprints,
  maxChanged: number,
): Promise<SearchDelta | null> {
  return store.transaction(async (tx) => {
    const version = await dataVersion(tx);
    const dead = new Bitset(base.ids.length);
    const seen = new Bitset(base.ids.length);
    const changed: number[] = [];
    await eachChunkColumns(
      tx.connection,
      `SELECT c.creator_id, ${rowFingerprintSql('c')} AS fp, coalesce(a.afp, 0) AS afp
        FROM creators c ${contentFingerprintJoin('c')} LEFT JOIN (${AUDIENCE_FINGERPRINTS_SQL}) a ON a.creator_id = c.creator_id`,
      (rows, id, fp, afp) => {
        for (let i = 0; i < rows; i++) {
          const creatorId = id.getItem(i) as number;
          const p = base.positionOf(creatorId);
          if (p >= 0) seen.add(p);
          if (p >= 0 && base.rows[p] === fp.getItem(i) && base.audience[p] === afp.getItem(i)) continue;
          if (p >= 0) dead.add(p);
          changed.push(creatorId);
        }
      },
    );
    // base creators the store no longer holds
    for (let p = 0; p < base.ids.length; p++) if (!seen.has(p)) dead.add(p);
    if (changed.length > maxChanged || dead.count() > maxChanged) return null;
    return { version, dead, rows: await readDeltaRows(tx, changed) };
  });
}

async function readDeltaRows(tx: Queryable, ids: number[]): Promise<DeltaRow[]> {
  if (ids.length === 0) return [];
  await tx.run('CREATE OR REPLACE TEMP TABLE search_delta_ids (creator_id INTEGER NOT NULL)');
  try {
    await appendIds(tx.connection, ids);
    const content = contentJoin('c');
    const rows = await tx.all<
      Record<string, unknown>
    >(`SELECT c.creator_id, c.platform, c.handle, c.display_name, c.niche, c.country,
        lower(c.city) AS city_lc, c.language, c.verified, c.followers::DOUBLE AS followers, c.engagement_rate::DOUBLE AS engagement_rate,
        c.growth_30d_pct::DOUBLE AS growth_30d_pct, c.authenticity_score::DOUBLE AS authenticity_score,
        c.audience_us_pct::DOUBLE AS audience_us_pct, coalesce(c.search_text, '') AS search_text,
        c.avg_views::DOUBLE AS avg_views, c.reels_avg_views::DOUBLE AS reels_avg_views, epoch_us(c.last_posted_at)::DOUBLE AS last_posted_us,
        c.price_post_usd::DOUBLE AS price_post_usd,
        ${content.columns}, coalesce(c.sponsored_posts, 0) > 0 AS has_sponsored_posts, coalesce(c.has_contact, false) AS has_contact
      FROM creators c JOIN search_delta_ids USING (creator_id) ${content.join}`);
    const audience = await tx.all<{
      creator_id: number;
      dimension: string;
      key: string;
      pct: number;
    }>(`SELECT a.creator_id, a.dimension, a.key,
        max(a.pct)::DOUBLE AS pct
      FROM audience a JOIN search_delta_ids USING (creator_id) WHERE a.dimension IN (${DIMENSIONS_SQL}) GROUP BY ALL`);
    const shares = new Map<number, Map<string, Map<string, number>>>();
    for (const a of audience) {
      let byDimension = shares.get(a.creator_id);
      if (!byDimension) shares.set(a.creator_id, (byDimension = new Map()));
      let byKey = byDimension.get(a.dimension);
      if (!byKey) byDimension.set(a.dimension, (byKey = new Map()));
      byKey.set(a.key, a.pct);
    }
    return rows.map((r) => ({
      ...(r as unknown as Omit<DeltaRow, 'audience'>),
      audience: shares.get(Number(r['creator_id'])) ?? new Map(),
    }));
  } finally {
    await tx.run('DROP TABLE IF EXISTS search_delta_ids');
  }
}

async function appendIds(c: DuckDBConnection, ids: readonly number[]): Promise<void> {
  const appender = await c.createAppender('search_delta_ids', 'main', 'temp');
  for (const id of ids) {
    appender.appendInteger(id);
    appender.endRow();
  }
  appender.flushSync();
  appender.closeSync();
}

// The tests below run once per delta row and search: module functions, not closures made on each call
// (a closure per call costs an allocation, and a name definition per call where names are kept).
function atLeast(v: number | null, min: number | undefined): boolean {
  return min === undefined || (v !== null && v >= min);
}

function atMost(v: number | null, max: number | undefined): boolean {
  return max === undefined || (v !== null && v <= max);
}

function anyOf(held: readonly string[], wanted: readonly string[] | undefined): boolean {
  if (!wanted) return true;
  for (const w of wanted) if (held.includes(w)) return true;
  return false;
}

/** The row's share of `key` on `dimension` is held and passes `min`. */
function share(row: DeltaRow, dimension: string, key: string, min: number | undefined): boolean {
  const pct = row.audience.get(dimension)?.get(key);
  return pct !== undefined && passesShare(pct, min);
}

function hasPrefixed(words: readonly string[], prefix: string): boolean {
  for (const word of words) if (word.startsWith(prefix)) return true;
  return false;
}

/** Whether a delta row passes the filters — the rules of `filterSql`, row by row. */
export function deltaMatches(row: DeltaRow, f: CreatorSearchFilters, context: SearchContext): boolean {
  if (f.platform && !f.platform.includes(row.platform)) return false;
  if (f.niche && !f.niche.includes(row.niche)) return false;
  if (f.country !== undefined && row.country !== f.country) return false;
  if (!atLeast(row.followers, f.followers_min) || !atMost(row.followers, f.followers_max)) return false;
  if (!atLeast(row.engagement_rate, f.engagement_min) || !atMost(row.engagement_rate, f.engagement_max)) return false;
  if (f.city !== undefined && row.city_lc !== f.city) return false;
  if (f.language !== undefined && row.language !== f.language) return false;
  if (f.verified !== undefined && row.verified !== f.verified) return false;
  if (!atLeast(row.growth_30d_pct, f.growth_30d_min) || !atLeast(row.authenticity_score, f.authenticity_min))
    return false;
  if (!atMost(row.price_post_usd, f.price_max)) return false;
  if (f.q) for (const word of f.q) if (!row.search_text.includes(wellFormed(word))) return false;
  if (f.audience_country) {
    const share =
      f.audience_country === 'US'
        ? row.audience_us_pct
        : (row.audience.get('country')?.get(f.audience_country) ?? null);
    const min = f.audience_country_min_pct;
    if (share === null || (min === undefined ? !(share > 0) : !(share >= min))) return false;
  }
  return contentMatches(row, f, context);
}

/** The content, audience and list filters on a delta row — `discoverySql`'s rules. */
function contentMatches(row: DeltaRow, f: CreatorSearchFilters, context: SearchContext): boolean {
  if (!anyOf(row.hashtags, f.hashtags) || !anyOf(row.mentions, f.mentions) || !anyOf(row.brands, f.brands))
    return false;
  if (!anyOf(row.linked_platforms, f.also_on)) return false;
  if (f.has_sponsored_posts !== undefined && row.has_sponsored_posts !== f.has_sponsored_posts) return false;
  if (f.has_contact !== undefined && row.has_contact !== f.has_contact) return false;
  if (f.keywords) for (const w of f.keywords) if (!hasPrefixed(row.caption_words, w)) return false;
  if (!atLeast(row.avg_views, f.avg_views_min) || !atLeast(row.reels_avg_views, f.reels_views_min)) return false;
  if (
    f.last_posted_days_max !== undefined &&
    !atLeast(row.last_posted_us, postedSinceUs(f.last_posted_days_max, context.now))
  )
    return false;
  if (f.audience_gender && !share(row, 'gender', f.audience_gender, f.audience_gender_min_pct)) return false;
  if (f.audience_language && !share(row, 'language', f.audience_language, f.audience_language_min_pct)) return false;
  if (f.audience_interest && !share(row, 'interest', f.audience_interest, f.audience_interest_min_pct)) return false;
  if (f.audience_real_min_pct !== undefined && !share(row, 'quality', 'real', f.audience_real_min_pct)) return false;
  if (f.audience_age && !ageMatches(row.audience.get('age'), f.audience_age, f.audience_age_min_pct)) return false;
  return !(f.exclude_list && context.excluded?.has(row.creator_id));
}

/** The listed ranges' shares summed in their order (the SQL's terms), over creators holding one of them. */
function ageMatches(
  ages: ReadonlyMap<string, number> | undefined,
  ranges: readonly string[],
  min: number | undefined,
): boolean {
  let sum = 0;
  let held = false;
  for (const range of ranges) {
    const pct = ages?.get(range);
    if (pct === undefined) continue;
    sum = held ? sum + pct : pct;
    held = true;
  }
  return held && passesShare(sum, min);
}

/** A delta row's sort value, NULL mapped past the end of the order (the SQL's sentinel). */
export function deltaSortValue(row: DeltaRow, sort: CreatorSort, nullLast: number): number {
  let column: number | null;
  switch (sort.key) {
    case 'followers':
      column = row.followers;
      break;
    case 'engagement_rate':
      column = row.engagement_rate;
      break;
    case 'growth_30d':
      column = row.growth_30d_pct;
      break;
    case 'authenticity_score':
      column = row.authenticity_score;
      break;
    case 'price':
      column = row.price_post_usd;
      break;
  }
  return column === null ? (sort.descending ? -nullLast : nullLast) : column;
}

/** The Creator item of a delta row. */
export function deltaItem(row: DeltaRow): CreatorItem {
  return {
    handle: row.handle,
    platform: row.platform,
    display_name: row.display_name,
    niche: row.niche,
    country: row.country,
    followers: row.followers,
    engagement_rate: row.engagement_rate,
    audience_us_pct: row.audience_us_pct,
    verified: row.verified,
  };
}
