import type { Migration } from './migration.js';

/**
 * A narrow copy of the searchable creator columns, physically sorted by
 * followers (descending), so the default search order's top-N reads only the
 * first row groups (DuckDB prunes them with zone maps). Rebuilt by the search
 * service when the creator data changes; until then searches read `creators`.
 */
export const searchProjection: Migration = {
  version: 10,
  name: 'creator search projection',
  statements: [
    `CREATE TABLE creator_search_projection (
      creator_id INTEGER NOT NULL,
      handle VARCHAR NOT NULL,
      platform VARCHAR NOT NULL,
      display_name VARCHAR,
      niche VARCHAR NOT NULL,
      country VARCHAR,
      city_lc VARCHAR,
      language VARCHAR,
      followers BIGINT NOT NULL,
      engagement_rate DOUBLE,
      growth_30d_pct DOUBLE,
      authenticity_score DOUBLE,
      audience_us_pct DOUBLE,
      verified BOOLEAN NOT NULL
    )`,
    `CREATE TABLE creator_search_projection_state (
      id INTEGER NOT NULL PRIMARY KEY,
      data_version VARCHAR NOT NULL,
      built_at TIMESTAMP NOT NULL
    )`,
  ],
};
