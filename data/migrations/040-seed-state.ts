import type { Migration } from './migration.js';

/**
 * Progress of the demo seed. The seed commits step by step (one big transaction
 * runs it at half the speed), so a row says `running` until the last step: a seed
 * that failed or was killed part-way is recognised and discarded before the store
 * is used again.
 */
export const seedState: Migration = {
  version: 40,
  name: 'seed state',
  statements: [
    `CREATE TABLE seed_state (
      id INTEGER NOT NULL PRIMARY KEY,
      status VARCHAR NOT NULL,
      creators INTEGER NOT NULL,
      seed INTEGER NOT NULL,
      started_at TIMESTAMP NOT NULL,
      finished_at TIMESTAMP
    )`,
  ],
};
