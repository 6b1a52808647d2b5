/** Quotes an SQL identifier (table, column) for DuckDB and PostgreSQL alike. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Which creators a derivation touches: all of them, or those whose ids are in a table. */
export type CreatorScope = 'all' | { table: string };

/** A `WHERE` fragment limiting `alias.creator_id` to a scope. */
export function scopeFilter(scope: CreatorScope, column = 'creator_id'): string {
  if (scope === 'all') return 'true';
  return `${column} IN (SELECT creator_id FROM ${quoteIdent(scope.table)})`;
}
