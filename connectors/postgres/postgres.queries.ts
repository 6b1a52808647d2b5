import { quoteIdent } from '../../data/sql.js';
import { TerminalError } from '../warehouse/errors.js';
import type { SyncColumn, SyncTableSpec } from '../warehouse/tables.js';

/** A DuckDB column type as PostgreSQL declares it, and as `information_schema` names it back. */
interface PgType {
  ddl: string;
  info: string;
}

const SIMPLE_TYPES: Readonly<Record<string, PgType>> = {
  BOOLEAN: { ddl: 'boolean', info: 'boolean' },
  TINYINT: { ddl: 'smallint', info: 'smallint' },
  SMALLINT: { ddl: 'smallint', info: 'smallint' },
  INTEGER: { ddl: 'integer', info: 'integer' },
  BIGINT: { ddl: 'bigint', info: 'bigint' },
  UTINYINT: { ddl: 'smallint', info: 'smallint' },
  USMALLINT: { ddl: 'integer', info: 'integer' },
  UINTEGER: { ddl: 'bigint', info: 'bigint' },
  UBIGINT: { ddl: 'numeric', info: 'numeric' },
  HUGEINT: { ddl: 'numeric', info: 'numeric' },
  FLOAT: { ddl: 'real', info: 'real' },
  DOUBLE: { ddl: 'double precision', info: 'double precision' },
  VARCHAR: { ddl: 'text', info: 'text' },
  JSON: { ddl: 'jsonb', info: 'jsonb' },
  UUID: { ddl: 'uuid', info: 'uuid' },
  DATE: { ddl: 'date', info: 'date' },
  TIMESTAMP: { ddl: 'timestamp', info: 'timestamp without time zone' },
  'TIMESTAMP WITH TIME ZONE': { ddl: 'timestamptz', info: 'timestamp with time zone' },
};

/**
 * Lists of text (hashtags, mentions, brands, linked platforms) are `text[]`: queried with
 * `= ANY (…)` or `@>`, and indexable with GIN.
 */
const TEXT_LIST: PgType = { ddl: 'text[]', info: 'text[]' };

export function pgType(column: SyncColumn): PgType {
  const simple = SIMPLE_TYPES[column.type];
  if (simple) return simple;
  if (column.type === 'VARCHAR[]') return TEXT_LIST;
  const decimal = /^DECIMAL\((\d+),(\d+)\)$/.exec(column.type);
  if (decimal) return { ddl: `numeric(${decimal[1]},${decimal[2]})`, info: 'numeric' };
  throw new TerminalError(
    `column ${column.name} has type ${column.type}, which the PostgreSQL destination cannot hold`,
  );
}

export function qualified(schema: string, table: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}

export function createTableSql(schema: string, spec: SyncTableSpec, columns: readonly SyncColumn[]): string {
  const cols = columns.map((c) => `${quoteIdent(c.name)} ${pgType(c).ddl}`);
  return (
    `CREATE TABLE IF NOT EXISTS ${qualified(schema, spec.name)} (${cols.join(', ')}, ` +
    `PRIMARY KEY (${spec.key.map(quoteIdent).join(', ')}))`
  );
}

/** The staging table: same columns as the target, private to this transaction, no WAL. */
export function createStageSql(schema: string, spec: SyncTableSpec, stage: string): string {
  return `CREATE TEMP TABLE ${quoteIdent(stage)} (LIKE ${qualified(schema, spec.name)} INCLUDING DEFAULTS) ON COMMIT DROP`;
}

/** `freeze` only for a table created or truncated in the same transaction. */
export function copySql(target: string, columns: readonly SyncColumn[], options: { freeze?: boolean } = {}): string {
  return `COPY ${target} (${columns.map((c) => quoteIdent(c.name)).join(', ')}) FROM STDIN (FORMAT csv${options.freeze ? ', FREEZE' : ''})`;
}

/**
 * One set-based upsert from staging: new keys are inserted, existing ones
 * updated only when some column differs, so an unchanged re-run writes nothing
 * and the row count is exactly the rows that changed.
 */
export function upsertSql(schema: string, spec: SyncTableSpec, columns: readonly SyncColumn[], stage: string): string {
  const names = columns.map((c) => quoteIdent(c.name));
  const rest = columns.filter((c) => !spec.key.includes(c.name)).map((c) => quoteIdent(c.name));
  const conflict = `ON CONFLICT (${spec.key.map(quoteIdent).join(', ')})`;
  const action =
    rest.length === 0
      ? 'DO NOTHING'
      : `DO UPDATE SET ${rest.map((c) => `${c} = EXCLUDED.${c}`).join(', ')} ` +
        `WHERE (${rest.map((c) => `t.${c}`).join(', ')}) IS DISTINCT FROM (${rest.map((c) => `EXCLUDED.${c}`).join(', ')})`;
  return (
    `INSERT INTO ${qualified(schema, spec.name)} AS t (${names.join(', ')}) ` +
    `SELECT ${names.join(', ')} FROM ${quoteIdent(stage)} ${conflict} ${action}`
  );
}

/** For a table sent whole: rows the store no longer has leave the destination too. */
export function deleteMissingSql(schema: string, spec: SyncTableSpec, stage: string): string {
  const match = spec.key.map((k) => `s.${quoteIdent(k)} = t.${quoteIdent(k)}`).join(' AND ');
  return `DELETE FROM ${qualified(schema, spec.name)} t WHERE NOT EXISTS (SELECT 1 FROM ${quoteIdent(stage)} s WHERE ${match})`;
}

/** Column types as `information_schema` names them; an array as its element type and `[]` (`text[]`). */
export const COLUMNS_SQL = `SELECT column_name, CASE WHEN data_type = 'ARRAY' THEN substr(udt_name, 2) || '[]' ELSE data_type END AS data_type
   FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`;

/**
 * The SELECT DuckDB writes as CSV for COPY FROM: the batch's columns, a list
 * turned into PostgreSQL's array literal (DuckDB's own `[a, b]` text is not
 * one): every item double-quoted, its backslashes and double quotes escaped
 * with a backslash, a NULL item as bare NULL, `{}` for an empty list; a NULL
 * list stays NULL.
 */
export function pgCsvSelect(columns: readonly SyncColumn[], sql: string): string {
  const projection = columns.map((c) => {
    const col = quoteIdent(c.name);
    if (pgType(c) !== TEXT_LIST) return `b.${col}`;
    const item = `CASE WHEN i IS NULL THEN 'NULL' ELSE '"' || replace(replace(i, '\\', '\\\\'), '"', '\\"') || '"' END`;
    return `CASE WHEN b.${col} IS NULL THEN NULL ELSE '{' || array_to_string(list_transform(b.${col}, lambda i: ${item}), ',') || '}' END AS ${col}`;
  });
  return `SELECT ${projection.join(', ')} FROM (${sql}) b`;
}

/** For a snapshot table: a group the batch touches keeps exactly the batch's rows. */
export function deleteReplacedSql(
  schema: string,
  spec: SyncTableSpec,
  group: readonly string[],
  stage: string,
): string {
  const inGroup = group.map((g) => `t.${quoteIdent(g)} = g.${quoteIdent(g)}`).join(' AND ');
  const sameKey = spec.key.map((k) => `s.${quoteIdent(k)} = t.${quoteIdent(k)}`).join(' AND ');
  return (
    `DELETE FROM ${qualified(schema, spec.name)} t USING (SELECT DISTINCT ${group.map(quoteIdent).join(', ')} FROM ${quoteIdent(stage)}) g ` +
    `WHERE ${inGroup} AND NOT EXISTS (SELECT 1 FROM ${quoteIdent(stage)} s WHERE ${sameKey})`
  );
}

export const PRIMARY_KEY_SQL =
  "SELECT conname AS name FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'p'";

/** The destination's own record of what each table holds, committed with the table's data. */
export function createStateTableSql(schema: string): string {
  return (
    `CREATE TABLE IF NOT EXISTS ${qualified(schema, '_cds_sync_state')} (table_name text PRIMARY KEY, ` +
    'watermark text, run_id text NOT NULL, rows_changed bigint NOT NULL, synced_at timestamptz NOT NULL DEFAULT now())'
  );
}

export function upsertStateSql(schema: string): string {
  return (
    `INSERT INTO ${qualified(schema, '_cds_sync_state')} (table_name, watermark, run_id, rows_changed) VALUES ($1, $2, $3, $4) ` +
    'ON CONFLICT (table_name) DO UPDATE SET watermark = EXCLUDED.watermark, run_id = EXCLUDED.run_id, ' +
    'rows_changed = EXCLUDED.rows_changed, synced_at = now()'
  );
}
