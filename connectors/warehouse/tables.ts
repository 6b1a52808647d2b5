import { quoteIdent } from '../../data/sql.js';
import type { SqlValue } from '../../data/store.js';
import { postTagsSql } from '../../data/derive/caption-parse.js';
import { contentJoin } from '../../data/derive/content-metrics.js';

/** The store tables a destination can receive, in the order a sync pushes them. */
export const SYNC_TABLE_NAMES = [
  'creators',
  'follower_history',
  'posts',
  'audience',
  'creator_contacts',
  'linked_accounts',
  'campaigns',
  'campaign_creators',
  'campaign_metrics',
] as const;
export type SyncTableName = (typeof SYNC_TABLE_NAMES)[number];

/** How one store table is synced: its key, its incremental cursor, what is left out. */
export interface SyncTableSpec {
  name: SyncTableName;
  /** The row's identity in the destination (the upsert key). */
  key: readonly string[];
  /**
   * The column a sync advances its watermark on; `null` means the table is sent
   * whole every run. `inclusive` re-sends rows at the last watermark, for DATE
   * cursors whose day can still gain or change rows after a sync.
   */
  cursor: { column: string; type: 'TIMESTAMP' | 'DATE'; inclusive: boolean } | null;
  /** What the store reads the table's rows from when that is not the table itself: an SQL relation. */
  source?: string;
  /** Internal columns that never leave the store. */
  exclude: readonly string[];
  /** The store keeps no primary key here, so the batch keeps the newest row per key. */
  dedupe: boolean;
  /**
   * Columns of a snapshot group (an audience dimension of a creator): the store
   * replaces a group whole, so a batch holds each group it touches complete and
   * the destination drops the group's rows the batch no longer has.
   */
  replaceGroup?: readonly string[];
}

const ts = (column: string) => ({ column, type: 'TIMESTAMP' as const, inclusive: false });
const day = (column: string) => ({ column, type: 'DATE' as const, inclusive: true });

export const SYNC_TABLES: Readonly<Record<SyncTableName, SyncTableSpec>> = Object.freeze({
  // with its content lists (creator_content); search_text and caption_words are search structures, rebuilt from what is sent
  creators: {
    name: 'creators',
    key: ['creator_id'],
    cursor: ts('updated_at'),
    exclude: ['search_text', 'caption_words'],
    dedupe: false,
    source: `(SELECT c.*, ${contentJoin('c').columns} FROM creators c ${contentJoin('c').join})`,
  },
  follower_history: {
    name: 'follower_history',
    key: ['creator_id', 'date'],
    cursor: day('date'),
    exclude: [],
    dedupe: true,
  },
  // tags a load committed unparsed are sent parsed: the cursor moves past them before their derivation stores them
  posts: {
    name: 'posts',
    key: ['creator_id', 'post_id'],
    cursor: ts('posted_at'),
    exclude: [],
    dedupe: true,
    source: `(SELECT * REPLACE (${postTagsSql('hashtags')} AS hashtags, ${postTagsSql('mentions')} AS mentions) FROM posts)`,
  },
  audience: {
    name: 'audience',
    key: ['creator_id', 'dimension', 'key'],
    cursor: ts('as_of'),
    exclude: [],
    dedupe: true,
    replaceGroup: ['creator_id', 'dimension'],
  },
  // no change time to advance on: both are small beside posts, and sent whole
  creator_contacts: { name: 'creator_contacts', key: ['creator_id'], cursor: null, exclude: [], dedupe: false },
  linked_accounts: {
    name: 'linked_accounts',
    key: ['creator_id', 'linked_platform', 'linked_handle'],
    cursor: null,
    exclude: [],
    dedupe: false,
  },
  campaigns: { name: 'campaigns', key: ['campaign_id'], cursor: ts('updated_at'), exclude: [], dedupe: false },
  campaign_creators: {
    name: 'campaign_creators',
    key: ['campaign_id', 'creator_id'],
    cursor: null,
    exclude: [],
    dedupe: false,
  },
  campaign_metrics: {
    name: 'campaign_metrics',
    key: ['campaign_id', 'date', 'creator_id'],
    cursor: day('date'),
    exclude: [],
    dedupe: true,
  },
});

/** A synced column and its DuckDB type (as `DESCRIBE` names it). */
export interface SyncColumn {
  name: string;
  type: string;
}

/** The rows of one batch: watermark bounds bound as parameters, never spliced. */
export interface BatchQuery {
  sql: string;
  params: SqlValue[];
}

/**
 * The SELECT of one incremental batch: rows past `from` (at or past, for an
 * inclusive cursor) up to and including `to`, the newest row per key when the
 * store does not enforce the key.
 */
export function batchQuery(
  spec: SyncTableSpec,
  columns: readonly SyncColumn[],
  from: string | null,
  to: string | null,
): BatchQuery {
  const list = columns.map((c) => quoteIdent(c.name)).join(', ');
  const where: string[] = [];
  const params: SqlValue[] = [];
  if (spec.cursor) {
    const col = quoteIdent(spec.cursor.column);
    if (from !== null) {
      where.push(`${col} ${spec.cursor.inclusive ? '>=' : '>'} CAST(? AS ${spec.cursor.type})`);
      params.push(from);
    }
    if (to !== null) {
      where.push(`${col} <= CAST(? AS ${spec.cursor.type})`);
      params.push(to);
    }
  }
  const order = spec.cursor ? `${quoteIdent(spec.cursor.column)} DESC` : '1';
  const dedupe = spec.dedupe
    ? ` QUALIFY row_number() OVER (PARTITION BY ${spec.key.map(quoteIdent).join(', ')} ORDER BY ${order}) = 1`
    : '';
  const filter = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return { sql: `SELECT ${list} FROM ${sourceRelation(spec)}${filter}${dedupe}`, params };
}

/** The relation a table's rows are read from in the store. */
export function sourceRelation(spec: SyncTableSpec): string {
  return spec.source ?? quoteIdent(spec.name);
}

/** The SQL expression naming a row's `dt=` partition (its cursor's day, else the run's day). */
export function partitionDateSql(spec: SyncTableSpec, runDate: string): string {
  if (spec.cursor) return `strftime(CAST(${quoteIdent(spec.cursor.column)} AS DATE), '%Y-%m-%d')`;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(runDate)) throw new Error(`not a date: ${runDate}`);
  return `'${runDate}'`;
}
