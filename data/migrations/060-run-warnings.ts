import type { Migration } from './migration.js';

/**
 * A run records what it loaded despite: columns of a file the entity does not
 * have, read past rather than refusing the file. A JSON list of texts, NULL when
 * there were none. PostgreSQL applies the same statement (data/state/pg-migrations.ts).
 */
export const runWarnings: Migration = {
  version: 60,
  name: 'run warnings',
  statements: ['ALTER TABLE pipeline_runs ADD COLUMN warnings VARCHAR'],
};
