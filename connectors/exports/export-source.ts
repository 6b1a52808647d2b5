import type { SqlValue } from '../../data/store.js';
import type { ExportFormat, ExportSource } from './export.config.js';
import { audiencePivotSql, projectField, type ExportField } from './export-fields.js';
import { parseSearchFilters, searchSql } from './search-filters.js';

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
 * FROM/WHERE for a source. List and campaign sources are scoped to the account
 * inside the query itself, so a foreign id reads nothing even if a check upstream
 * were missed.
 */
function sourceSql(source: ExportSource, accountId: string): SourceSql {
  switch (source.type) {
    case 'search': {
      // The search's WHERE names bare `creators` columns, so it filters inside a derived table.
      const s = searchSql(parseSearchFilters(source.filters));
      const all = s.where === 'true';
      return {
        from: all ? 'creators c' : `(SELECT * FROM creators WHERE ${s.where}) c`, where: 'true', params: s.params, orderBy: s.orderBy,
        scope: all ? null : { sql: `SELECT creator_id FROM creators WHERE ${s.where}`, params: s.params },
      };
    }
    case 'list': {
      const where = 'lm.list_id IN (SELECT list_id FROM lists WHERE list_id = ? AND account_id = ?)';
      const params = [source.list_id, accountId];
      return {
        from: 'list_members lm JOIN creators c ON c.creator_id = lm.creator_id', where, params,
        orderBy: 'lm.added_at, c.creator_id', scope: { sql: `SELECT lm.creator_id FROM list_members lm WHERE ${where}`, params },
      };
    }
    case 'creators': {
      const any = source.handles.filter((h) => h.platform === null).map((h) => h.handle);
      const exact = source.handles.filter((h) => h.platform !== null).map((h) => `${h.platform}|${h.handle}`);
      const where = `(c.handle IN (SELECT unnest(?::VARCHAR[])) OR (c.platform || '|' || c.handle) IN (SELECT unnest(?::VARCHAR[])))`;
      return {
        from: 'creators c', where, params: [any, exact], orderBy: 'c.handle, c.platform',
        scope: { sql: `SELECT c.creator_id FROM creators c WHERE ${where}`, params: [any, exact] },
      };
    }
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

/** How many rows the export would write (checked against the plan cap before any work). */
export function exportCountSql(source: ExportSource, accountId: string): BoundSql {
  const s = sourceSql(source, accountId);
  return { sql: `SELECT count(*)::BIGINT AS n FROM ${s.from} WHERE ${s.where}`, params: s.params };
}

/**
 * The one SELECT an export writes: chosen fields projected for the format, the
 * audience pivot joined only when an audience column is chosen, in a stable order.
 */
export function exportQuerySql(source: ExportSource, accountId: string, fields: readonly ExportField[], format: ExportFormat): BoundSql {
  const s = sourceSql(source, accountId);
  const pivot = audiencePivotSql(fields, s.scope?.sql ?? null);
  const projection = fields.map((f) => projectField(f, format)).join(', ');
  const body = `SELECT ${projection} FROM ${s.from}${pivot ? ' LEFT JOIN aud a ON a.creator_id = c.creator_id' : ''}
    WHERE ${s.where} ORDER BY ${s.orderBy}`;
  if (!pivot) return { sql: body, params: s.params };
  return { sql: `WITH aud AS (${pivot}) ${body}`, params: [...(s.scope?.params ?? []), ...s.params] };
}
