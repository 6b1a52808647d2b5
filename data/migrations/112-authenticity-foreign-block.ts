import type { Migration } from './migration.js';

/**
 * The audience's foreign block (issue 31): the share of the audience in its
 * second-largest foreign country. A creator's audience abroad usually has one
 * main foreign country and a thin rest; a bought audience brings a block from
 * one or two other countries, while a global audience spreads over many, none
 * large (docs/authenticity.md, `audience_foreign_block`). NULL until the
 * creator's features are next computed (a missing value is never a penalty).
 */
export const authenticityForeignBlock: Migration = {
  version: 112,
  name: 'authenticity audience foreign block',
  statements: [`ALTER TABLE authenticity_features ADD COLUMN foreign_second_pct DOUBLE`],
};
