import type { Migration } from './migration.js';

/**
 * A run counts the valid rows it ignored because the stored row is newer (a
 * versioned entity: creators, campaigns, audience), so an update that lost to
 * newer data says so instead of loading silently with nothing changed.
 * PostgreSQL applies the same statement (data/state/pg-migrations.ts).
 */
export const runStaleRows: Migration = {
  version: 65,
  name: 'run stale rows',
  statements: ['ALTER TABLE pipeline_runs ADD COLUMN rows_stale BIGINT DEFAULT 0'],
};
