import { DuckDBTimestampValue, type DuckDBConnection } from '@duckdb/node-api';
import type { StateDb } from '../../data/state/state-db.js';
import type { SqlValue, Store } from '../../data/store.js';
import type { ExportFormat, ExportSource } from './export.config.js';
import { audiencePivotSql, projectField, type ExportField } from './export-fields.js';
import { listMembers } from './export-job.queries.js';
import { parseSearchFilters, searchContextFor, searchSql } from './export-filters.js';
import type { SearchContext } from '../../data/creators/search-context.js';
import { appendMatches, MATCHES_SCOPE, MATCHES_TABLE_SQL, readMatches } from './export-lookalikes.js';

/**
 * The rows an export reads: a FROM with its aliases (`c` is always the creator),
 * a WHERE, their parameters in text order, a stable order, and the creator ids
 * in scope for the audience pivot (null when every creator is in scope).
 */
interface SourceSql {
  from: string;
  where: string;
  params: SqlValue[];
  orderBy: string;
  scope: { sql: string; params: SqlValue[] } | null;
}

/** A complete statement with its bound parameters. */
export interface BoundSql {
  sql: string;
  params: SqlValue[];
}

/**
 * FROM/WHERE for a source. Campaign sources are scoped to the account inside the
 * query itself, list sources when their members are read, so a foreign id reads
 * nothing even if a check upstream were missed.
 */
function sourceSql(
  source: ExportSource,
  accountId: string,
  expectedRows = Number.POSITIVE_INFINITY,
  context?: SearchContext,
): SourceSql {
  switch (source.type) {
    case 'search': {
      // The search's WHERE names bare `creators` columns, so it filters inside a derived table.
      const s = searchSql(parseSearchFilters(source.filters), context);
      const all = s.where === 'true';
      // a large subset pivots every creator's audience and lets the LEFT JOIN drop the rest: the scoping semi-join
      // would add a third hash table beside the pivot and the join, and with the small memory limit of an exports
      // process that is what runs out (measured at 96 MB: 481k of 1M creators failed scoped, passed unscoped)
      const scoped = !all && expectedRows <= SCOPED_PIVOT_MAX_ROWS;
      return {
        from: all ? 'creators c' : `(SELECT * FROM creators WHERE ${s.where}) c`,
        where: 'true',
        params: s.params,
        orderBy: s.orderBy,
        scope: scoped ? { sql: `SELECT creator_id FROM creators WHERE ${s.where}`, params: s.params } : null,
      };
    }
    case 'list':
      // the members come from the service state, loaded into this temp table first (withSourceConnection)
      return {
        from: `${LIST_SCOPE} lm JOIN creators c ON c.creator_id = lm.creator_id`,
        where: 'true',
        params: [],
        orderBy: 'lm.added_at, c.creator_id',
        scope: { sql: `SELECT creator_id FROM ${LIST_SCOPE}`, params: [] },
      };
    case 'creators': {
      const any = source.handles.filter((h) => h.platform === null).map((h) => h.handle);
      const exact = source.handles.filter((h) => h.platform !== null).map((h) => `${h.platform}|${h.handle}`);
      const where = `(c.handle IN (SELECT unnest(?::VARCHAR[])) OR (c.platform || '|' || c.handle) IN (SELECT unnest(?::VARCHAR[])))`;
      return {
        from: 'creators c',
        where,
        params: [any, exact],
        orderBy: 'c.handle, c.platform',
        scope: { sql: `SELECT c.creator_id FROM creators c WHERE ${where}`, params: [any, exact] },
      };
    }
    case 'lookalikes':
      // the ranked matches come from the service state, loaded into this temp table first (withSourceConnection)
      return {
        from: `${MATCHES_SCOPE} lm JOIN creators c ON c.platform = lm.platform AND c.handle = lm.handle`,
        where: 'true',
        params: [],
        orderBy: 'lm.rank',
        scope: {
          sql: `SELECT c.creator_id FROM ${MATCHES_SCOPE} lm JOIN creators c ON c.platform = lm.platform AND c.handle = lm.handle`,
          params: [],
        },
      };
    case 'campaign':
      return {
        from: 'campaign_metrics m JOIN creators c ON c.creator_id = m.creator_id',
        where: 'm.campaign_id IN (SELECT campaign_id FROM campaigns WHERE campaign_id = ? AND account_id = ?)',
        params: [source.campaign_id, accountId],
        orderBy: 'm.date, c.platform, c.handle',
        scope: null,
      };
  }
}

/** Up to this many exported creators of a search, the audience pivot reads only theirs (see sourceSql). */
export const SCOPED_PIVOT_MAX_ROWS = 100_000;

/**
 * How many rows the export would write (checked against the plan cap before any work).
 * `context` (searchContextFor) carries a search's time and its excluded lists' members.
 */
export function exportCountSql(source: ExportSource, accountId: string, context?: SearchContext): BoundSql {
  const s = sourceSql(source, accountId, Number.POSITIVE_INFINITY, context);
  return { sql: `SELECT count(*)::BIGINT AS n FROM ${s.from} WHERE ${s.where}`, params: s.params };
}

/**
 * The one SELECT an export writes: chosen fields projected for the format, the
 * audience pivot joined only when an audience column is chosen, in a stable order.
 * `expectedRows` (the count taken when the job was created) decides whether a
 * search's pivot is limited to the exported creators; the rows are the same either way.
 */
export function exportQuerySql(
  source: ExportSource,
  accountId: string,
  fields: readonly ExportField[],
  format: ExportFormat,
  expectedRows?: number,
  context?: SearchContext,
): BoundSql {
  const s = sourceSql(source, accountId, expectedRows, context);
  const pivot = audiencePivotSql(fields, s.scope?.sql ?? null);
  const projection = fields.map((f) => projectField(f, format)).join(', ');
  const body = `SELECT ${projection} FROM ${s.from}${pivot ? ' LEFT JOIN aud a ON a.creator_id = c.creator_id' : ''}
    WHERE ${s.where} ORDER BY ${s.orderBy}`;
  if (!pivot) return { sql: body, params: s.params };
  return { sql: `WITH aud AS (${pivot}) ${body}`, params: [...(s.scope?.params ?? []), ...s.params] };
}

/** The temp table a list export reads its members from, on the connection that runs the export. */
const LIST_SCOPE = 'export_list_members';

/**
 * Lends a store connection ready to run the source's statements (exportCountSql,
 * exportQuerySql). A list's members are service state and its creators are in
 * the store, which may be two databases: the members (up to 100,000) are read
 * from the state and appended into a temp table on this connection, and the
 * statements join that. A lookalikes export's ranked matches (up to 10,000,
 * stored with the job `exportId`) are loaded the same way. Temp tables work on
 * a read-only snapshot too.
 */
export async function withSourceConnection<T>(
  store: Store,
  state: StateDb,
  source: ExportSource,
  accountId: string,
  fn: (connection: DuckDBConnection) => Promise<T>,
  exportId: string | null = null,
): Promise<T> {
  if (source.type === 'lookalikes') return withMatches(store, state, accountId, exportId, fn);
  if (source.type !== 'list') return store.withConnection(fn);
  const members = await listMembers(state, accountId, source.list_id);
  return store.withConnection(async (connection) => {
    await connection.run(
      `CREATE OR REPLACE TEMP TABLE ${LIST_SCOPE} (creator_id INTEGER NOT NULL, added_at TIMESTAMP NOT NULL)`,
    );
    try {
      await appendMembers(connection, members);
      return await fn(connection);
    } finally {
      await connection.run(`DROP TABLE IF EXISTS temp.${LIST_SCOPE}`);
    }
  });
}

async function withMatches<T>(
  store: Store,
  state: StateDb,
  accountId: string,
  exportId: string | null,
  fn: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  const matches = exportId ? await readMatches(state, accountId, exportId) : [];
  return store.withConnection(async (connection) => {
    await connection.run(MATCHES_TABLE_SQL);
    try {
      await appendMatches(connection, matches);
      return await fn(connection);
    } finally {
      await connection.run(`DROP TABLE IF EXISTS temp.${MATCHES_SCOPE}`);
    }
  });
}

async function appendMembers(
  connection: DuckDBConnection,
  members: ReadonlyArray<{ creator_id: number; added_us: number }>,
): Promise<void> {
  const appender = await connection.createAppender(LIST_SCOPE, 'main', 'temp');
  try {
    for (const m of members) {
      appender.appendInteger(m.creator_id);
      appender.appendTimestamp(new DuckDBTimestampValue(BigInt(m.added_us)));
      appender.endRow();
    }
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
}

/**
 * What a search source's SQL needs from outside the store, at `now`: the members of
 * the lists it excludes, read from the state (an unknown list or another account's
 * is a 400 naming filters.exclude_list). Other sources need nothing.
 */
export async function sourceContext(
  state: StateDb,
  source: ExportSource,
  accountId: string,
  now: number,
): Promise<SearchContext | undefined> {
  if (source.type !== 'search') return undefined;
  return searchContextFor(state, accountId, parseSearchFilters(source.filters), now);
}
