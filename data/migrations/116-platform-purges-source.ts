import type { Migration } from './migration.js';

/**
 * Where a bot purge day came from (issue 31): `given` (written as data, as the
 * demo seed does; every row before this migration) or `detected` (found in the
 * follower history at load time, for a platform with no given days:
 * data/authenticity/purge-detection.queries.ts, docs/authenticity.md). Given days
 * stay authoritative; detected rows are replaced on each detection.
 */
export const platformPurgesSource: Migration = {
  version: 116,
  name: 'platform purges source',
  statements: [`ALTER TABLE platform_purges ADD COLUMN source VARCHAR DEFAULT 'given'`],
};
