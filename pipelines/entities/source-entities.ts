import { NICHES, PLATFORMS } from '../../data/reference/taxonomy.js';
import { sqlString } from '../../data/sql.js';
import { ISO_COUNTRY_CODES, ISO_LANGUAGE_CODES } from '../../data/reference/iso-codes.js';
import type { ColumnSpec, EntityName, EntitySpec } from './entity.js';

/** An SQL list literal of constant strings (reference data, never user input). */
function sqlList(values: readonly string[]): string {
  return `(${values.map(sqlString).join(', ')})`;
}

const oneOf =
  (values: readonly string[], what: string) =>
  (v: string): string =>
    `CASE WHEN ${v} NOT IN ${sqlList(values)} THEN 'not a known ${what}' END`;
const atLeast =
  (min: number) =>
  (v: string): string =>
    `CASE WHEN ${v} < ${min} THEN 'must be ${min} or more' END`;
const notFuture = (v: string): string =>
  `CASE WHEN ${v} > (now() AT TIME ZONE 'UTC') + INTERVAL 1 DAY THEN 'is in the future' END`;

/** Post types, and the names earlier versions took (still accepted, stored as their type). */
export const POST_TYPES = ['post', 'reel', 'short', 'video', 'story', 'live'] as const;
const POST_TYPE_ALIASES: Readonly<Record<string, (typeof POST_TYPES)[number]>> = {
  image: 'post',
  carousel: 'post',
  text: 'post',
  stream: 'live',
};
const CAMPAIGN_STATUSES = ['draft', 'active', 'paused', 'completed'];
const AGE_RANGES = ['13-17', '18-24', '25-34', '35-44', '45-54', '55-64', '65+'];

const platform: ColumnSpec = {
  name: 'platform',
  type: 'text',
  required: true,
  normalise: (v) => `lower(${v})`,
  check: oneOf(PLATFORMS, 'platform'),
};
/** Handles are stored lower case with a leading '@'; 'Name' and '@Name' are both accepted. */
const normaliseHandleSql = (v: string): string => `'@' || lower(ltrim(${v}, '@'))`;
const handleShape = (v: string): string => `NOT regexp_full_match(${v}, '@[a-z0-9._-]{1,100}')`;
const handle: ColumnSpec = {
  name: 'handle',
  type: 'text',
  required: true,
  normalise: normaliseHandleSql,
  check: (v) => `CASE WHEN ${handleShape(v)} THEN 'not a valid handle' END`,
};
const count = (name: string, required = true): ColumnSpec => ({ name, type: 'bigint', required, check: atLeast(0) });
const campaignId: ColumnSpec = { name: 'campaign_id', type: 'text', required: true };

const creators: EntitySpec = {
  name: 'creators',
  key: ['platform', 'handle'],
  disposition: 'merge',
  versionColumn: 'updated_at',
  refersToCreator: false,
  columns: [
    platform,
    handle,
    { name: 'display_name', type: 'text' },
    { name: 'bio', type: 'text', prose: true },
    { name: 'niche', type: 'text', required: true, normalise: (v) => `lower(${v})`, check: oneOf(NICHES, 'niche') },
    {
      name: 'country',
      type: 'text',
      normalise: (v) => `upper(${v})`,
      check: oneOf(ISO_COUNTRY_CODES, 'ISO 3166-1 alpha-2 country code'),
    },
    { name: 'city', type: 'text' },
    {
      name: 'language',
      type: 'text',
      normalise: (v) => `lower(${v})`,
      check: oneOf(ISO_LANGUAGE_CODES, 'ISO 639-1 language code'),
    },
    count('followers'),
    count('following', false),
    { name: 'posts_count', type: 'integer', check: atLeast(0) },
    { name: 'verified', type: 'boolean' },
    { name: 'updated_at', type: 'timestamp', required: true, check: notFuture },
  ],
};

const followerHistory: EntitySpec = {
  name: 'follower_history',
  key: ['platform', 'handle', 'date'],
  disposition: 'merge',
  refersToCreator: true,
  columns: [
    platform,
    handle,
    { name: 'date', type: 'date', required: true, check: notFuture },
    count('followers'),
    count('following', false),
  ],
};

const posts: EntitySpec = {
  name: 'posts',
  key: ['platform', 'handle', 'post_id'],
  disposition: 'merge',
  refersToCreator: true,
  columns: [
    platform,
    handle,
    { name: 'post_id', type: 'text', required: true },
    { name: 'posted_at', type: 'timestamp', required: true, check: notFuture },
    { name: 'type', type: 'text', required: true, normalise: postType, check: oneOf(POST_TYPES, 'post type') },
    count('likes'),
    count('comments'),
    count('views', false),
    count('shares', false),
    { name: 'sponsored', type: 'boolean' },
    { name: 'caption', type: 'text', prose: true },
    // the sponsoring brand's handle; a brand on a post not marked sponsored is a contradiction, not a guess to make
    {
      name: 'brand',
      type: 'text',
      normalise: normaliseHandleSql,
      check: (v) => `CASE WHEN ${handleShape(v)} THEN 'not a valid handle'
        WHEN ${v} IS NOT NULL AND NOT coalesce(sponsored, false) AND NOT __bad_sponsored THEN 'a brand is only for a sponsored post (sponsored is not true)' END`,
    },
  ],
};

function postType(v: string): string {
  const aliases = Object.entries(POST_TYPE_ALIASES)
    .map(([from, to]) => `WHEN ${sqlString(from)} THEN ${sqlString(to)}`)
    .join(' ');
  return `CASE lower(${v}) ${aliases} ELSE lower(${v}) END`;
}

/** An e-mail address's shape: something, one `@`, a domain with a dot; no blanks. */
const EMAIL = String.raw`[^@\s]+@[^@\s]+\.[^@\s.]+`;
/** An http(s) URL with a host. */
const WEBSITE = String.raw`https?://[^\s/?#.]+(\.[^\s/?#.]+)*(:[0-9]+)?([/?#]\S*)?`;

const creatorContacts: EntitySpec = {
  name: 'creator_contacts',
  key: ['platform', 'handle'],
  disposition: 'merge',
  refersToCreator: true,
  columns: [
    platform,
    handle,
    {
      name: 'email',
      type: 'text',
      check: (v) => `CASE WHEN ${v} IS NULL AND website IS NULL THEN 'an email or a website is required'
        WHEN NOT regexp_full_match(${v}, '${EMAIL}') THEN 'not an e-mail address' END`,
    },
    {
      name: 'website',
      type: 'text',
      check: (v) => `CASE WHEN NOT regexp_full_match(${v}, '${WEBSITE}', 'i') THEN 'not an http(s) URL' END`,
    },
  ],
};

const linkedAccounts: EntitySpec = {
  name: 'linked_accounts',
  key: ['platform', 'handle', 'linked_platform', 'linked_handle'],
  disposition: 'append',
  refersToCreator: true,
  columns: [
    platform,
    handle,
    { ...platform, name: 'linked_platform' },
    {
      name: 'linked_handle',
      type: 'text',
      required: true,
      normalise: normaliseHandleSql,
      check: (v) => `CASE WHEN ${handleShape(v)} THEN 'not a valid handle'
        WHEN linked_platform = platform AND ${v} = handle THEN 'is the account itself' END`,
    },
  ],
};

/** Keys each audience dimension accepts; city and interest take any name. */
function audienceKeyCheck(v: string): string {
  return `CASE
    WHEN dimension = 'country' AND ${v} NOT IN ${sqlList(ISO_COUNTRY_CODES)} THEN 'not an ISO 3166-1 alpha-2 country code'
    WHEN dimension = 'language' AND ${v} NOT IN ${sqlList(ISO_LANGUAGE_CODES)} THEN 'not an ISO 639-1 language code'
    WHEN dimension = 'gender' AND ${v} NOT IN ('female', 'male', 'other') THEN 'gender must be female, male or other'
    WHEN dimension = 'age' AND ${v} NOT IN ${sqlList(AGE_RANGES)} THEN 'not a known age range'
    WHEN dimension = 'quality' AND ${v} NOT IN ('real', 'suspicious', 'mass_followers', 'influencers') THEN 'not a known quality class'
  END`;
}

const audience: EntitySpec = {
  name: 'audience',
  key: ['platform', 'handle', 'dimension', 'key'],
  disposition: 'replace',
  versionColumn: 'as_of',
  refersToCreator: true,
  columns: [
    platform,
    handle,
    {
      name: 'dimension',
      type: 'text',
      required: true,
      normalise: (v) => `lower(${v})`,
      check: oneOf(['country', 'city', 'gender', 'age', 'language', 'interest', 'quality'], 'audience dimension'),
    },
    {
      name: 'key',
      type: 'text',
      required: true,
      normalise: (v) =>
        `CASE lower(trim(dimension)) WHEN 'country' THEN upper(${v}) WHEN 'city' THEN ${v} ELSE lower(${v}) END`,
      check: audienceKeyCheck,
    },
    {
      name: 'pct',
      type: 'double',
      required: true,
      // hundredths of a percent: finer shares mean nothing to a buyer, and the search index's share kernel adds them exactly
      normalise: (v) => `round(${v}, 2)`,
      check: (v) => `CASE WHEN ${v} < 0 OR ${v} > 100 THEN 'must be between 0 and 100' END`,
    },
    { name: 'as_of', type: 'timestamp', required: true, check: notFuture },
  ],
};

const campaigns: EntitySpec = {
  name: 'campaigns',
  key: ['campaign_id'],
  disposition: 'merge',
  versionColumn: 'updated_at',
  refersToCreator: false,
  columns: [
    campaignId,
    { name: 'account_id', type: 'text', required: true },
    { name: 'name', type: 'text', required: true },
    { name: 'brand', type: 'text' },
    {
      name: 'status',
      type: 'text',
      required: true,
      normalise: (v) => `lower(${v})`,
      check: oneOf(CAMPAIGN_STATUSES, 'campaign status'),
    },
    { name: 'starts_on', type: 'date' },
    { name: 'ends_on', type: 'date', check: (v) => `CASE WHEN ${v} < starts_on THEN 'is before starts_on' END` },
    {
      name: 'currency',
      type: 'text',
      normalise: (v) => `upper(${v})`,
      check: (v) => `CASE WHEN NOT regexp_full_match(${v}, '[A-Z]{3}') THEN 'not an ISO 4217 currency code' END`,
    },
    { name: 'budget', type: 'double', check: atLeast(0) },
    { name: 'updated_at', type: 'timestamp', required: true, check: notFuture },
  ],
};

const campaignCreators: EntitySpec = {
  name: 'campaign_creators',
  key: ['campaign_id', 'platform', 'handle'],
  disposition: 'append',
  refersToCreator: true,
  columns: [
    campaignId,
    platform,
    handle,
    // what the creator was paid for: the price estimates read spend per post of one type (docs/pricing.md)
    { name: 'post_type', type: 'text', normalise: postType, check: oneOf(POST_TYPES, 'post type') },
    { name: 'posts', type: 'integer', check: atLeast(1) },
  ],
};

const METRICS = ['impressions', 'reach', 'views', 'likes', 'comments', 'shares', 'saves', 'clicks', 'conversions'];
const campaignMetrics: EntitySpec = {
  name: 'campaign_metrics',
  key: ['campaign_id', 'date', 'platform', 'handle'],
  disposition: 'merge',
  refersToCreator: true,
  columns: [
    campaignId,
    { name: 'date', type: 'date', required: true, check: notFuture },
    platform,
    handle,
    ...METRICS.map((m) => count(m, false)),
    { name: 'revenue', type: 'double', check: atLeast(0) },
    { name: 'spend', type: 'double', check: atLeast(0) },
  ],
};

/**
 * A sample of a creator's follower ids (docs/audience-overlap.md). A sample is a
 * snapshot: a file replaces the whole sample of every creator it names.
 */
const followerSamples: EntitySpec = {
  name: 'follower_samples',
  key: ['platform', 'handle', 'follower_id'],
  disposition: 'replace',
  refersToCreator: true,
  columns: [
    platform,
    handle,
    {
      name: 'follower_id',
      type: 'text',
      required: true,
      check: (v) => `CASE WHEN length(${v}) > 200 THEN 'longer than 200 characters' END`,
    },
  ],
};

/** A creators file's columns, in declaration order: the header example files, tests, benches and drills write. */
export const CREATOR_FILE_COLUMNS: readonly string[] = creators.columns.map((c) => c.name);

/** Every source entity, by name. */
export const ENTITIES: Readonly<Record<EntityName, EntitySpec>> = {
  creators,
  follower_history: followerHistory,
  posts,
  creator_contacts: creatorContacts,
  linked_accounts: linkedAccounts,
  audience,
  campaigns,
  campaign_creators: campaignCreators,
  campaign_metrics: campaignMetrics,
  follower_samples: followerSamples,
};
