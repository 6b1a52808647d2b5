import { quoteIdent } from '../../data/sql.js';
import { timestampSql } from '../../data/timestamps.js';
import type { ExportFormat, ExportSourceKind } from './export.config.js';
import { invalidExport } from './export.errors.js';

/**
 * How a column is typed in the output (drives projection per format and the Arrow schema).
 * `text_list` is a list of strings: a JSON array in JSON/NDJSON, LIST<UTF8> in Parquet,
 * List<Utf8> in Arrow, and the JSON array's text in one CSV cell.
 */
export type FieldKind = 'text' | 'int' | 'float' | 'bool' | 'timestamp' | 'date' | 'text_list';

/** One exportable column: its name, the SQL computing it, and its type. */
export interface ExportField {
  name: string;
  /** SQL over the aliases `c` (creators), `lm` (list members or lookalike matches), `m` (campaign_metrics), `a` (audience pivot). */
  sql: string;
  kind: FieldKind;
  /**
   * The audience breakdown and rank an `audience_*` column is pivoted from (gender shares have rank 0);
   * the pivot is joined only when a chosen column has one.
   */
  audience?: { dimension: string; rank: number };
}

const creator = (name: string, kind: FieldKind): ExportField => ({ name, sql: `c.${quoteIdent(name)}`, kind });

const CREATOR_COLUMNS: readonly ExportField[] = [
  creator('handle', 'text'),
  creator('platform', 'text'),
  creator('display_name', 'text'),
  creator('bio', 'text'),
  creator('niche', 'text'),
  creator('country', 'text'),
  creator('city', 'text'),
  creator('language', 'text'),
  creator('followers', 'int'),
  creator('following', 'int'),
  creator('posts_count', 'int'),
  creator('verified', 'bool'),
  creator('engagement_rate', 'float'),
  creator('avg_likes', 'float'),
  creator('avg_comments', 'float'),
  creator('avg_views', 'float'),
  creator('followers_7d', 'int'),
  creator('followers_30d', 'int'),
  creator('followers_90d', 'int'),
  creator('growth_7d_pct', 'float'),
  creator('growth_30d_pct', 'float'),
  creator('growth_90d_pct', 'float'),
  creator('audience_us_pct', 'float'),
  creator('authenticity_score', 'float'),
  creator('fake_followers_pct', 'float'),
  creator('authenticity_verdict', 'text'),
  creator('updated_at', 'timestamp'),
];

/**
 * A content list of the creator, from its `creator_content` row (a subquery DuckDB turns into a join);
 * a creator without one exports an empty list, the meaning it has everywhere else.
 */
const creatorList = (name: string): ExportField => ({
  name,
  sql: `coalesce((SELECT k.${quoteIdent(name)} FROM creator_content k WHERE k.creator_id = c.creator_id), []::VARCHAR[])`,
  kind: 'text_list',
});

/**
 * Content figures derived from the creator's stored posts, contacts and linked accounts (opt-in through
 * `fields`). Hashtags and mentions without their sign, brands as `@handle`, most used first. Whether a
 * contact is known is exported; the contact details themselves and the caption words (a search
 * structure) never are.
 */
const CONTENT_COLUMNS: readonly ExportField[] = [
  creatorList('hashtags'),
  creatorList('mentions'),
  creatorList('brands'),
  creator('sponsored_posts', 'int'),
  creator('sponsored_pct', 'float'),
  creator('engagement_rate_sponsored', 'float'),
  creator('engagement_rate_organic', 'float'),
  creator('posts_per_week', 'float'),
  creator('last_posted_at', 'timestamp'),
  creator('reels_avg_views', 'float'),
  { name: 'has_contact', sql: 'coalesce(c.has_contact, false)', kind: 'bool' },
  creatorList('linked_platforms'),
  // the mid price estimate of a post in USD (docs/pricing.md), what search's price_max and sort=price read
  creator('price_post_usd', 'float'),
];

/** Audience breakdowns flattened to top-N columns: `audience_top_country_1`, `audience_top_country_pct_1`, … (defaults: rank 1). */
const AUDIENCE_TOP: ReadonlyArray<{ dimension: string; n: number }> = [
  { dimension: 'country', n: 3 },
  { dimension: 'city', n: 3 },
  { dimension: 'age', n: 3 },
  { dimension: 'language', n: 2 },
  { dimension: 'interest', n: 3 },
];

function audienceColumns(): ExportField[] {
  const out: ExportField[] = [];
  for (const { dimension, n } of AUDIENCE_TOP) {
    for (let rank = 1; rank <= n; rank++) {
      const audience = { dimension, rank };
      out.push({
        name: `audience_top_${dimension}_${rank}`,
        sql: `a.${quoteIdent(`${dimension}_key_${rank}`)}`,
        kind: 'text',
        audience,
      });
      out.push({
        name: `audience_top_${dimension}_pct_${rank}`,
        sql: `a.${quoteIdent(`${dimension}_pct_${rank}`)}`,
        kind: 'float',
        audience,
      });
    }
  }
  for (const gender of GENDERS) {
    out.push({
      name: `audience_${gender}_pct`,
      sql: `a.${quoteIdent(`gender_${gender}`)}`,
      kind: 'float',
      audience: { dimension: 'gender', rank: 0 },
    });
  }
  return out;
}

/**
 * The audience pivot for the columns the chosen fields use, one row per creator.
 * Top-1 columns (the defaults) are plain `arg_max`/`max` aggregates, which DuckDB
 * can spill, so a 1M-creator export stays within a small memory limit; ranks 2+
 * number each breakdown with a window first (slower, only when asked for).
 * `scope` (a creator_id subquery) limits it to the exported creators; null when
 * every creator is exported.
 */
export function audiencePivotSql(fields: readonly ExportField[], scope: string | null): string | null {
  const used = fields.flatMap((f) => (f.audience ? [f.audience] : []));
  if (used.length === 0) return null;
  const dims = [...new Set(used.map((u) => u.dimension))];
  const ranked = used.some((u) => u.rank > 1);
  const columns: string[] = [];
  for (const { dimension, rank } of dedupe(used)) {
    if (dimension === 'gender') continue;
    const key = quoteIdent(`${dimension}_key_${rank}`);
    const pct = quoteIdent(`${dimension}_pct_${rank}`);
    if (ranked) {
      const filter = `FILTER (WHERE dimension = '${dimension}' AND rn = ${rank})`;
      columns.push(`max(key) ${filter} AS ${key}`, `max(pct) ${filter} AS ${pct}`);
    } else {
      const filter = `FILTER (WHERE dimension = '${dimension}')`;
      columns.push(`arg_max(key, pct) ${filter} AS ${key}`, `max(pct) ${filter} AS ${pct}`);
    }
  }
  if (dims.includes('gender')) {
    for (const g of GENDERS)
      columns.push(`max(pct) FILTER (WHERE dimension = 'gender' AND key = '${g}') AS ${quoteIdent(`gender_${g}`)}`);
  }
  const where = `dimension IN (${dims.map((d) => `'${d}'`).join(', ')})${scope ? ` AND creator_id IN (${scope})` : ''}`;
  const rows = ranked
    ? `(SELECT creator_id, dimension, key, pct, row_number() OVER (PARTITION BY creator_id, dimension ORDER BY pct DESC, key) AS rn
        FROM audience WHERE ${where})`
    : `(SELECT creator_id, dimension, key, pct FROM audience WHERE ${where})`;
  return `SELECT creator_id, ${columns.join(', ')} FROM ${rows} GROUP BY creator_id`;
}

function dedupe(used: ReadonlyArray<{ dimension: string; rank: number }>): Array<{ dimension: string; rank: number }> {
  const seen = new Map(used.map((u) => [`${u.dimension}:${u.rank}`, u]));
  return [...seen.values()];
}

const GENDERS = ['female', 'male', 'other'] as const;

const CREATOR_FIELDS: readonly ExportField[] = [...CREATOR_COLUMNS, ...CONTENT_COLUMNS, ...audienceColumns()];
const LIST_FIELDS: readonly ExportField[] = [
  ...CREATOR_FIELDS,
  { name: 'added_at', sql: 'lm.added_at', kind: 'timestamp' },
];

const metric = (name: string, kind: FieldKind): ExportField => ({ name, sql: `m.${quoteIdent(name)}`, kind });
const CAMPAIGN_FIELDS: readonly ExportField[] = [
  metric('campaign_id', 'text'),
  metric('date', 'date'),
  creator('platform', 'text'),
  creator('handle', 'text'),
  ...['impressions', 'reach', 'views', 'likes', 'comments', 'shares', 'saves', 'clicks', 'conversions'].map((n) =>
    metric(n, 'int'),
  ),
  metric('revenue', 'float'),
  metric('spend', 'float'),
];

const CREATOR_DEFAULTS = [
  'handle',
  'platform',
  'display_name',
  'niche',
  'country',
  'city',
  'language',
  'followers',
  'following',
  'posts_count',
  'verified',
  'engagement_rate',
  'avg_likes',
  'avg_comments',
  'avg_views',
  'growth_30d_pct',
  'audience_us_pct',
  'authenticity_score',
  'updated_at',
  'audience_top_country_1',
  'audience_top_country_pct_1',
  'audience_top_age_1',
  'audience_top_age_pct_1',
  'audience_female_pct',
];

/**
 * A lookalikes export's own columns, over its ranked matches (`lm`, loaded by export-source.ts): the rank
 * (1 = most similar), the similarity, and the reasons as two lists of the same length and order, the
 * details ("same niche: fitness", "6 shared hashtags: #hiit…") and their kinds (niche, hashtags, mentions,
 * caption_words, audience), as GET /v1/creators/{handle}/lookalikes gives them (docs/lookalikes.md).
 */
const LOOKALIKE_FIELDS: readonly ExportField[] = [
  { name: 'rank', sql: 'lm.rank', kind: 'int' },
  { name: 'similarity', sql: 'lm.similarity', kind: 'float' },
  { name: 'reasons', sql: 'lm.reasons', kind: 'text_list' },
  { name: 'reason_kinds', sql: 'lm.reason_kinds', kind: 'text_list' },
  ...CREATOR_FIELDS,
];

/** Every field a source can export (the allow-list `fields` is checked against). */
export function availableFields(kind: ExportSourceKind): readonly ExportField[] {
  if (kind === 'campaign') return CAMPAIGN_FIELDS;
  if (kind === 'lookalikes') return LOOKALIKE_FIELDS;
  return kind === 'list' ? LIST_FIELDS : CREATOR_FIELDS;
}

/** The columns exported when no `fields` are given. */
export function defaultFieldNames(kind: ExportSourceKind): readonly string[] {
  if (kind === 'campaign') return CAMPAIGN_FIELDS.map((f) => f.name);
  if (kind === 'lookalikes') return ['rank', 'similarity', 'reasons', 'reason_kinds', ...CREATOR_DEFAULTS];
  return kind === 'list' ? [...CREATOR_DEFAULTS, 'added_at'] : CREATOR_DEFAULTS;
}

/**
 * Resolves requested field names against the source's allow-list; unknown or
 * repeated names are one 400 naming every one of them.
 */
export function resolveFields(kind: ExportSourceKind, requested: readonly string[] | undefined): ExportField[] {
  const byName = new Map(availableFields(kind).map((f) => [f.name, f]));
  const names = requested ?? defaultFieldNames(kind);
  const unknown = names.filter((n) => !byName.has(n));
  if (unknown.length > 0) {
    throw invalidExport('fields', `unknown field(s) for a ${kind} export: ${unknown.join(', ')}`);
  }
  const repeated = names.filter((n, i) => names.indexOf(n) !== i);
  if (repeated.length > 0)
    throw invalidExport('fields', `field(s) named more than once: ${[...new Set(repeated)].join(', ')}`);
  return names.map((n) => byName.get(n) as ExportField);
}

/** Characters that make a spreadsheet read a cell as a formula (OWASP CSV injection). */
const FORMULA_START = `left(%s, 1) IN ('=', '+', '-', '@', chr(9), chr(13))`;

/**
 * The SELECT expression of one field for a format. Text formats get ISO 8601
 * timestamps with `Z`; CSV text cells that would start a formula get a leading
 * apostrophe, done in SQL so DuckDB's COPY stays the writer. A handle that is a
 * plain `@name` is left alone: it cannot form a formula and every handle starts with `@`.
 * Arrow gets timestamps as epoch microseconds and dates as epoch days.
 * A CSV list cell is the list as JSON array text (`["fitness","mealprep"]`, `[]` for none):
 * one cell, unambiguous whatever the values hold, and never formula-leading.
 */
export function projectField(field: ExportField, format: ExportFormat): string {
  const alias = quoteIdent(field.name);
  if (field.kind === 'timestamp' && (format === 'json' || format === 'ndjson' || format === 'csv')) {
    return `${timestampSql(field.sql)} AS ${alias}`;
  }
  if (field.kind === 'date' && format === 'csv') return `strftime(${field.sql}, '%Y-%m-%d') AS ${alias}`;
  if (field.kind === 'timestamp' && format === 'arrow') return `epoch_us(${field.sql}) AS ${alias}`;
  // Parquet gets the types the Arrow writer declares for the same kind: UTC-adjusted microsecond timestamps, 64-bit integers
  if (field.kind === 'timestamp' && format === 'parquet') return `timezone('UTC', ${field.sql}) AS ${alias}`;
  if (field.kind === 'int' && format === 'parquet') return `(${field.sql})::BIGINT AS ${alias}`;
  if (field.kind === 'date' && format === 'arrow') return `(${field.sql} - DATE '1970-01-01')::INTEGER AS ${alias}`;
  if (field.kind === 'text_list' && format === 'csv') return `to_json(${field.sql})::VARCHAR AS ${alias}`;
  if (field.kind === 'text' && format === 'csv')
    return `${neutraliseFormula(field.sql, field.name === 'handle')} AS ${alias}`;
  return `${field.sql} AS ${alias}`;
}

function neutraliseFormula(sql: string, isHandle: boolean): string {
  const risky = FORMULA_START.replace('%s', sql);
  const safeHandle = isHandle ? `NOT regexp_full_match(${sql}, '@[a-z0-9._]{1,64}') AND ` : '';
  return `CASE WHEN ${safeHandle}${risky} THEN '''' || ${sql} ELSE ${sql} END`;
}
