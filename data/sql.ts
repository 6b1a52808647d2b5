/** Quotes an SQL identifier (table, column) for DuckDB and PostgreSQL alike. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A string as an SQL string literal, quotes doubled. For places that take no
 * bound parameter (a `COPY … TO` path, an `IN (…)` list of constants).
 */
export function sqlString(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** A millisecond time as a DuckDB `TIMESTAMP` literal: UTC, no zone suffix (the store keeps naive UTC). */
export function sqlTimestamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 23).replace('T', ' ');
}

/** Which creators a derivation touches: all of them, or those whose ids are in a table. */
export type CreatorScope = 'all' | { table: string };

/** A `WHERE` fragment limiting `alias.creator_id` to a scope. */
export function scopeFilter(scope: CreatorScope, column = 'creator_id'): string {
  if (scope === 'all') return 'true';
  return `${column} IN (SELECT creator_id FROM ${quoteIdent(scope.table)})`;
}
