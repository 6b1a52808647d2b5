import type { Migration } from './migration.js';

/**
 * A one-file posts load commits its rows without their parsed hashtags and
 * mentions (NULL until parsed) and leaves here, in the same transaction, the
 * creators whose posts it changed or pruned, with the load's time. The
 * derivation that follows the commit parses the tags, re-derives those
 * creators and emits their `creator.updated` events, and deletes the rows in
 * its own transaction; rows still here at the next start or load mean the
 * process stopped in between, and that derivation is run then
 * (pipelines/engine/pending-posts.ts). Analytical store only.
 */
export const pendingPostDerivations: Migration = {
  version: 105,
  name: 'pending post derivations',
  statements: [
    `CREATE TABLE pending_post_derivations (
      run_id VARCHAR NOT NULL,
      creator_id INTEGER NOT NULL,
      loaded_at TIMESTAMP NOT NULL
    )`,
  ],
};
