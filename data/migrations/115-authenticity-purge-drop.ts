import type { Migration } from './migration.js';

/**
 * The purge drop (issue 31): the mean follower change, as a drop in percent, over
 * the readings that span a bot purge of the creator's platform (platform_purges,
 * migration 114). NULL until the creator's features are next computed, and for
 * creators whose history spans no purge (a missing value is never a penalty).
 */
export const authenticityPurgeDrop: Migration = {
  version: 115,
  name: 'authenticity purge drop',
  statements: [`ALTER TABLE authenticity_features ADD COLUMN purge_drop_pct DOUBLE`],
};
