import type { Migration } from './migration.js';

/**
 * Bot purges (issue 31): the days a platform removed fake accounts in bulk, one
 * row per platform and day. Bought followers lose a block on such a day while
 * earned audiences barely move, so the authenticity features read the follower
 * history around these dates (docs/authenticity.md, `purge_drop`). Reference
 * data: the demo seed writes its world's purges here; a store without rows
 * evaluates no purge signal (a missing value is never a penalty).
 */
export const platformPurges: Migration = {
  version: 114,
  name: 'platform bot purges',
  statements: [
    `CREATE TABLE IF NOT EXISTS platform_purges (
      platform VARCHAR NOT NULL,
      purge_date DATE NOT NULL,
      PRIMARY KEY (platform, purge_date))`,
  ],
};
