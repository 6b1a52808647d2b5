/**
 * A schema change.
 *
 * DDL that replays safely: DuckDB (1.5) cannot replay `ALTER TABLE … ADD COLUMN`
 * from its write-ahead log when the table has a function default
 * (`current_timestamp`, `nextval(…)`): it re-binds the defaults with no default
 * database set, and a store killed before its next checkpoint would not open
 * (data/store-recovery.ts recovers it). So: add columns with a constant default
 * or none, and give function defaults only where a table is created, never
 * through ALTER. runMigrations checkpoints after every migration, so no DDL
 * stays in the WAL; keep it that way.
 *
 * Versions only ever grow; a migration never changes once released.
 * Each migration file imports this type from here, not from index.ts (which imports them).
 */
export interface Migration {
  version: number;
  name: string;
  statements: readonly string[];
}
