import type { Migration } from './migration.js';

/**
 * Export jobs carry the attempt that claimed them and until when that claim
 * holds. Every write a worker makes to its job names the attempt, so a worker
 * whose lease ran out (and whose job another worker took) changes nothing; in
 * cluster mode a job whose lease expired is claimed again. PostgreSQL applies
 * the same statements (data/state/pg-migrations.ts).
 */
export const exportLeases: Migration = {
  version: 53,
  name: 'export leases',
  statements: [
    'ALTER TABLE exports ADD COLUMN attempt_id VARCHAR',
    'ALTER TABLE exports ADD COLUMN lease_expires_at TIMESTAMP',
  ],
};
