import type { Migration } from './migration.js';

/**
 * A load of purely new creators commits without their derived columns (search
 * text, authenticity features and scores) and leaves one row here in the same
 * transaction: the ids it added. The derivation that follows the commit deletes
 * the row in its own transaction; a row still here at the next start or load
 * means the process stopped in between, and that derivation is run then.
 * Analytical store only: it names creators, and commits with them.
 */
export const pendingDerivations: Migration = {
  version: 95,
  name: 'pending derivations',
  statements: [
    `CREATE TABLE pending_derivations (
      run_id VARCHAR NOT NULL PRIMARY KEY,
      first_creator_id INTEGER NOT NULL,
      last_creator_id INTEGER NOT NULL,
      created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )`,
  ],
};
