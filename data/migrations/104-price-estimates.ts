import type { Migration } from './migration.js';

/**
 * Price estimates (docs/pricing.md).
 * - `campaign_creators` records what a creator was paid for: the deliverable's
 *   post type and how many posts (both optional in a source file), so a
 *   campaign's spend on a creator is a price per post of one type.
 * - `pricing_models`: each fitted model, versioned like the authenticity
 *   models: its coefficients, residual spread and held-out figures; the newest
 *   row is the active one.
 * - `price_estimates`: per creator and post type, the low/mid/high range in USD,
 *   its basis (`campaigns` or `peers`), how many campaign observations it rests
 *   on, and its confidence; the model version that wrote it.
 * - `creators.price_post_usd`: the mid estimate of a `post`, the column search
 *   filters (`price_max`) and sorts (`sort=price`) on; NULL without an estimate.
 */
export const priceEstimates: Migration = {
  version: 104,
  name: 'price estimates',
  statements: [
    'ALTER TABLE campaign_creators ADD COLUMN post_type VARCHAR',
    'ALTER TABLE campaign_creators ADD COLUMN posts INTEGER',
    `CREATE TABLE pricing_models (
      version VARCHAR NOT NULL PRIMARY KEY,
      fitted_at TIMESTAMP NOT NULL,
      observations INTEGER NOT NULL,
      model JSON NOT NULL,
      metrics JSON NOT NULL
    )`,
    `CREATE TABLE price_estimates (
      creator_id INTEGER NOT NULL,
      post_type VARCHAR NOT NULL,
      low DOUBLE NOT NULL,
      mid DOUBLE NOT NULL,
      high DOUBLE NOT NULL,
      basis VARCHAR NOT NULL,
      observations INTEGER NOT NULL,
      confidence VARCHAR NOT NULL,
      model_version VARCHAR NOT NULL
    )`,
    'ALTER TABLE creators ADD COLUMN price_post_usd DOUBLE',
  ],
};
