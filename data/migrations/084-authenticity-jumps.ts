import type { Migration } from './migration.js';

/**
 * Residual follower jumps (issue 15, second pass): one-day gains measured
 * against the creator's own day-to-day noise, counted and summed when no post
 * explains them, with the days listed. NULL until the creator's features are
 * next computed (a missing value is never a penalty).
 */
export const authenticityJumps: Migration = {
  version: 84,
  name: 'authenticity residual jumps',
  statements: [
    `ALTER TABLE authenticity_features ADD COLUMN unexplained_jumps_n INTEGER`,
    `ALTER TABLE authenticity_features ADD COLUMN unexplained_jump_gain_pct DOUBLE`,
    `ALTER TABLE authenticity_features ADD COLUMN jumps VARCHAR`,
  ],
};
