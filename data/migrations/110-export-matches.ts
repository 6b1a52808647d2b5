import type { Migration } from './migration.js';

/**
 * The ranked matches of a `lookalikes` export (docs/lookalikes.md, "Exports"),
 * taken from the search index when the job is created (the API process holds
 * the index; an exports process may not) and read by the worker that writes
 * the file: one JSON document per job, removed when the job succeeds or
 * fails. PostgreSQL applies the same statement (data/state/pg-migrations.ts).
 */
export const exportMatches: Migration = {
  version: 110,
  name: 'export matches',
  statements: [
    `CREATE TABLE export_matches (
      export_id VARCHAR NOT NULL PRIMARY KEY,
      matches VARCHAR NOT NULL
    )`,
  ],
};
