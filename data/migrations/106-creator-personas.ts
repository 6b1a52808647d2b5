import type { Migration } from './migration.js';

/**
 * The demo world's persona groups (data/seed/demo-personas.ts): creators made
 * from the same persona, the ground truth lookalike quality is measured
 * against (docs/lookalikes.md). Written by the seed only, like creator_labels.
 */
export const creatorPersonas: Migration = {
  version: 106,
  name: 'creator personas',
  statements: [
    `CREATE TABLE creator_personas (
      creator_id INTEGER NOT NULL PRIMARY KEY,
      persona INTEGER NOT NULL
    )`,
  ],
};
