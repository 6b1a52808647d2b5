import type { SqlValue } from '../../data/store.js';
import type { ExportFormat, ExportSource } from './export.config.js';
import { audiencePivotSql, projectField, type ExportField } from './export-fields.js';
import { parseSearchFilters, searchSql } from './search-filters.js';

/** The rows an export reads: a FROM with its aliases, a WHERE, its parameters, and a stable order. */
interface SourceSql {
  from: string;
  where: string;
  params: SqlValue[];
  orderBy: string;
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
      const s = searchSql(parseSearchFilters(source.filters));
      return { from: 'creators c', where: s.where, params: s.params, orderBy: s.orderBy };
    }
    case 'list':
      return {
        from: 'list_members lm JOIN creators c ON c.creator_id = lm.creator_id',
        where: 'lm.list_id IN (SELECT list_id FROM lists WHERE list_id = ? AND account_id = ?)',
        params: [source.list_id, accountId],
        orderBy: 'lm.added_at, c.creator_id',
      };
    case 'creators': {
      const any = source.handles.filter((h) => h.platform === null).map((h) => h.handle);
      const exact = source.handles.filter((h) => h.platform !== null).map((h) => `${h.platform}|${h.handle}`);
      return {
        from: 'creators c',
        where: `(c.handle IN (SELECT unnest(?::VARCHAR[])) OR (c.platform || '|' || c.handle) IN (SELECT unnest(?::VARCHAR[])))`,
        params: [any, exact],
        orderBy: 'c.handle, c.platform',
      };
    }
    case 'campaign':
      return {
        from: 'campaign_metrics m JOIN creators c ON c.creator_id = m.creator_id',
        where: 'm.campaign_id IN (SELECT campaign_id FROM campaigns WHERE campaign_id = ? AND account_id = ?)',
        params: [source.campaign_id, accountId],
        orderBy: 'm.date, c.platform, c.handle',
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
  const pivot = audiencePivotSql(fields, `SELECT c.creator_id FROM ${s.from} WHERE ${s.where}`);
  const projection = fields.map((f) => projectField(f, format)).join(', ');
  const body = `SELECT ${projection} FROM ${s.from}${pivot ? ' LEFT JOIN aud a ON a.creator_id = c.creator_id' : ''}
    WHERE ${s.where} ORDER BY ${s.orderBy}`;
  if (!pivot) return { sql: body, params: s.params };
  return { sql: `WITH aud AS (${pivot}) ${body}`, params: [...s.params, ...s.params] };
}
