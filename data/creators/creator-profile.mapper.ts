import { GAZETTEER } from '../reference/taxonomy.js';
import { toCreatorItem, type CreatorItem } from './creator-item.js';
import type {
  AudienceRow,
  BenchmarkPercentiles,
  BenchmarkRow,
  ContentRow,
  HistoryRow,
  LinkedAccountRow,
  PeerGroup,
  PostRow,
  PriceEstimateRow,
} from './creator-profile.queries.js';

export interface CreatorProfile extends CreatorItem {
  bio: string | null;
  city: string | null;
  language: string | null;
  following: number | null;
  posts_count: number | null;
  avg_likes: number | null;
  avg_comments: number | null;
  avg_views: number | null;
  audience: {
    countries: Array<{ code: string; pct: number }>;
    cities: Array<{ name: string; country: string | null; pct: number }>;
    genders: Array<{ gender: string; pct: number }>;
    ages: Array<{ range: string; pct: number }>;
    languages: Array<{ code: string; pct: number }>;
    interests: Array<{ name: string; pct: number }>;
    quality: {
      real_pct: number | null;
      suspicious_pct: number | null;
      mass_followers_pct: number | null;
      influencers_pct: number | null;
    };
  };
  growth: {
    followers_7d: number | null;
    followers_30d: number | null;
    followers_90d: number | null;
    followers_7d_pct: number | null;
    followers_30d_pct: number | null;
    followers_90d_pct: number | null;
    history: Array<{ date: string; followers: number; engagement_rate: number | null }>;
  };
  authenticity: {
    score: number | null;
    fake_followers_pct: number | null;
    verdict: string | null;
    checked_at: string | null;
  };
  recent_posts: PostRow[];
  content: ProfileContent;
  linked_accounts: Array<{ platform: string; handle: string }>;
  benchmarks: ProfileBenchmarks | null;
  price_estimate: ProfilePriceEstimate | null;
  has_contact: boolean;
  data_as_of: { profile: string | null; audience: string | null; posts: string | null };
  updated_at: string;
}

/** What a creator posts about and for whom, from its stored posts (as of `data_as_of.posts`). */
export interface ProfileContent {
  top_hashtags: Array<{ tag: string; posts: number }>;
  top_mentions: Array<{ handle: string; posts: number }>;
  brands: Array<{ brand: string; sponsored_posts: number; last_posted_at: string | null }>;
  sponsored_pct: number | null;
  engagement_rate_sponsored: number | null;
  engagement_rate_organic: number | null;
  posts_per_week: number | null;
  last_posted_at: string | null;
  avg_views_by_type: Record<string, number | null>;
}

/** Where the creator stands among its peers (docs/benchmarks.md): percentiles 0–100, null without a value. */
export interface ProfileBenchmarks extends BenchmarkPercentiles {
  peer_group: PeerGroup;
}

/** What the creator is likely to cost per post, by post type (docs/pricing.md). */
export interface ProfilePriceEstimate {
  currency: 'USD';
  per_type: Array<{ type: string; low: number; mid: number; high: number }>;
  basis: 'campaigns' | 'peers';
  observations: number;
  confidence: 'high' | 'medium' | 'low';
  model_version: string;
}

/** The child rows a profile is built from, besides the creator's own row. */
export interface ProfileParts {
  audience: AudienceRow[];
  history: HistoryRow[];
  posts: PostRow[];
  content: ContentRow[];
  linked: LinkedAccountRow[];
  /** Its peer group and percentiles; undefined before its derivation has placed it in one. */
  benchmarks: BenchmarkRow | undefined;
  /** Its price estimates, one per post type; none before the first fit. */
  prices: PriceEstimateRow[];
}

/** City name → country code, for the cities we know (audience city keys are plain names). */
const CITY_COUNTRY = new Map<string, string>(
  GAZETTEER.flatMap((c) => c.cities.map((city) => [city.toLowerCase(), c.code] as const)),
);

/** Maps the creator row and its child rows to the profile of docs/search.md. */
export function toCreatorProfile(row: Record<string, unknown>, parts: ProfileParts): CreatorProfile {
  const { audience, history, posts } = parts;
  return {
    ...toCreatorItem(row),
    ...columns(row, str, ['bio', 'city', 'language']),
    ...columns(row, num, ['following', 'posts_count', 'avg_likes', 'avg_comments', 'avg_views']),
    audience: toAudience(audience, str(row['city']), str(row['country'])),
    growth: {
      ...columns(row, num, ['followers_7d', 'followers_30d', 'followers_90d']),
      followers_7d_pct: num(row['growth_7d_pct']),
      followers_30d_pct: num(row['growth_30d_pct']),
      followers_90d_pct: num(row['growth_90d_pct']),
      history: history.map((h) => ({
        date: h.date,
        followers: h.followers,
        engagement_rate: h.engagement_rate ?? null,
      })),
    },
    authenticity: {
      score: num(row['authenticity_score']),
      fake_followers_pct: num(row['fake_followers_pct']),
      verdict: str(row['authenticity_verdict']),
      checked_at: str(row['authenticity_checked_at']),
    },
    recent_posts: posts.map((p) => ({
      ...p,
      views: p.views ?? null,
      shares: p.shares ?? null,
      sponsored: Boolean(p.sponsored),
    })),
    content: toContent(row, parts.content),
    linked_accounts: parts.linked.map((l) => ({ platform: l.platform, handle: l.handle })),
    benchmarks: parts.benchmarks ? toBenchmarks(parts.benchmarks) : null,
    price_estimate: toPriceEstimate(parts.prices),
    has_contact: row['has_contact'] === true,
    data_as_of: {
      profile: str(row['profile_as_of']),
      audience: str(row['audience_as_of']),
      posts: str(row['posts_as_of']),
    },
    updated_at: String(row['updated_at']),
  };
}

/** The estimates of one creator (one fit: basis, observations and confidence are the creator's, the same on every row). */
function toPriceEstimate(rows: PriceEstimateRow[]): ProfilePriceEstimate | null {
  const first = rows[0];
  if (!first) return null;
  return {
    currency: 'USD',
    per_type: rows.map((r) => ({ type: r.post_type, low: r.low, mid: r.mid, high: r.high })),
    basis: first.basis === 'campaigns' ? 'campaigns' : 'peers',
    observations: Number(first.observations),
    confidence: first.confidence === 'high' || first.confidence === 'medium' ? first.confidence : 'low',
    model_version: first.model_version,
  };
}

/** Most first, ties by value: the order the derived `creators` lists keep too. */
const byCount = (a: ContentRow, b: ContentRow): number =>
  b.posts - a.posts || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);

function toContent(row: Record<string, unknown>, rows: ContentRow[]): ProfileContent {
  const of = (kind: ContentRow['kind']): ContentRow[] => rows.filter((r) => r.kind === kind).sort(byCount);
  return {
    top_hashtags: of('hashtag').map((r) => ({ tag: r.key, posts: r.posts })),
    top_mentions: of('mention').map((r) => ({ handle: `@${r.key}`, posts: r.posts })),
    brands: of('brand').map((r) => ({ brand: r.key, sponsored_posts: r.posts, last_posted_at: r.last_posted_at })),
    ...columns(row, num, ['sponsored_pct', 'engagement_rate_sponsored', 'engagement_rate_organic', 'posts_per_week']),
    last_posted_at: str(row['last_posted_at']),
    avg_views_by_type: Object.fromEntries(
      of('type')
        .sort((a, b) => (a.key < b.key ? -1 : 1))
        .map((r) => [r.key, r.views ?? null]),
    ),
  };
}

/**
 * A city's country: from the gazetteer of known cities, else the creator's own
 * country when it is the creator's own city, else unknown (null).
 */
function cityCountry(name: string, ownCity: string | null, ownCountry: string | null): string | null {
  const known = CITY_COUNTRY.get(name.toLowerCase());
  if (known) return known;
  return ownCity !== null && ownCity.toLowerCase() === name.toLowerCase() ? ownCountry : null;
}

function toAudience(
  rows: AudienceRow[],
  ownCity: string | null,
  ownCountry: string | null,
): CreatorProfile['audience'] {
  const of = (dimension: string): AudienceRow[] => rows.filter((r) => r.dimension === dimension);
  const quality = new Map(of('quality').map((r) => [r.key, r.pct]));
  return {
    countries: of('country').map((r) => ({ code: r.key, pct: r.pct })),
    cities: of('city').map((r) => ({ name: r.key, country: cityCountry(r.key, ownCity, ownCountry), pct: r.pct })),
    genders: of('gender').map((r) => ({ gender: r.key, pct: r.pct })),
    ages: of('age')
      .map((r) => ({ range: r.key, pct: r.pct }))
      .sort((a, b) => a.range.localeCompare(b.range)),
    languages: of('language').map((r) => ({ code: r.key, pct: r.pct })),
    interests: of('interest').map((r) => ({ name: r.key, pct: r.pct })),
    quality: {
      real_pct: quality.get('real') ?? null,
      suspicious_pct: quality.get('suspicious') ?? null,
      mass_followers_pct: quality.get('mass_followers') ?? null,
      influencers_pct: quality.get('influencers') ?? null,
    },
  };
}

function toBenchmarks(b: BenchmarkRow): ProfileBenchmarks {
  return {
    peer_group: {
      platform: b.platform,
      niche: b.niche,
      followers_from: Number(b.followers_from),
      followers_to: num(b.followers_to),
      creators: Number(b.creators),
    },
    engagement_rate: num(b.engagement_rate),
    growth_30d: num(b.growth_30d),
    avg_views: num(b.avg_views),
    authenticity_score: num(b.authenticity_score),
  };
}

/** The columns `names` of `row`, each read by `read`, under their own names (in that order). */
function columns<K extends string, V>(
  row: Record<string, unknown>,
  read: (v: unknown) => V,
  names: readonly K[],
): Record<K, V> {
  return Object.fromEntries(names.map((name) => [name, read(row[name])])) as Record<K, V>;
}

function str(v: unknown): string | null {
  return v === null || v === undefined ? null : String(v);
}

function num(v: unknown): number | null {
  return v === null || v === undefined ? null : Number(v);
}
