import type { Migration } from './migration.js';

/**
 * The source entities of docs/data-formats.md, keyed by a surrogate `creator_id` so the
 * big child tables (history, posts, audience) join on an integer. Derived
 * creator metrics live on `creators` itself so search filters and sorts on them
 * without joins.
 */
export const sourceEntities: Migration = {
  version: 1,
  name: 'source entities',
  statements: [
    `CREATE TABLE creators (
      creator_id INTEGER NOT NULL PRIMARY KEY,
      platform VARCHAR NOT NULL,
      handle VARCHAR NOT NULL,
      display_name VARCHAR,
      bio VARCHAR,
      niche VARCHAR NOT NULL,
      country VARCHAR,
      city VARCHAR,
      language VARCHAR,
      followers BIGINT NOT NULL,
      following BIGINT,
      posts_count INTEGER,
      verified BOOLEAN NOT NULL DEFAULT false,
      updated_at TIMESTAMP NOT NULL,
      engagement_rate DOUBLE,
      avg_likes DOUBLE,
      avg_comments DOUBLE,
      avg_views DOUBLE,
      followers_7d BIGINT,
      followers_30d BIGINT,
      followers_90d BIGINT,
      growth_7d_pct DOUBLE,
      growth_30d_pct DOUBLE,
      growth_90d_pct DOUBLE,
      audience_us_pct DOUBLE,
      authenticity_score DOUBLE,
      fake_followers_pct DOUBLE,
      authenticity_verdict VARCHAR,
      authenticity_checked_at TIMESTAMP,
      profile_as_of TIMESTAMP,
      audience_as_of TIMESTAMP,
      posts_as_of TIMESTAMP,
      search_text VARCHAR
    )`,
    `CREATE INDEX creators_handle_idx ON creators (handle)`,
    `CREATE TABLE follower_history (
      creator_id INTEGER NOT NULL,
      date DATE NOT NULL,
      followers INTEGER NOT NULL,
      following INTEGER
    )`,
    `CREATE TABLE posts (
      creator_id INTEGER NOT NULL,
      post_id VARCHAR NOT NULL,
      posted_at TIMESTAMP NOT NULL,
      type VARCHAR NOT NULL,
      likes BIGINT NOT NULL,
      comments BIGINT NOT NULL,
      views BIGINT,
      shares BIGINT,
      sponsored BOOLEAN NOT NULL DEFAULT false
    )`,
    `CREATE TABLE audience (
      creator_id INTEGER NOT NULL,
      dimension VARCHAR NOT NULL,
      key VARCHAR NOT NULL,
      pct DOUBLE NOT NULL,
      as_of TIMESTAMP NOT NULL
    )`,
    `CREATE TABLE campaigns (
      campaign_id VARCHAR NOT NULL PRIMARY KEY,
      account_id VARCHAR NOT NULL,
      name VARCHAR NOT NULL,
      brand VARCHAR,
      status VARCHAR NOT NULL,
      starts_on DATE,
      ends_on DATE,
      currency VARCHAR NOT NULL DEFAULT 'USD',
      budget DOUBLE,
      updated_at TIMESTAMP NOT NULL
    )`,
    `CREATE TABLE campaign_creators (
      campaign_id VARCHAR NOT NULL,
      creator_id INTEGER NOT NULL,
      PRIMARY KEY (campaign_id, creator_id)
    )`,
    `CREATE TABLE campaign_metrics (
      campaign_id VARCHAR NOT NULL,
      date DATE NOT NULL,
      creator_id INTEGER NOT NULL,
      impressions BIGINT NOT NULL DEFAULT 0,
      reach BIGINT NOT NULL DEFAULT 0,
      views BIGINT NOT NULL DEFAULT 0,
      likes BIGINT NOT NULL DEFAULT 0,
      comments BIGINT NOT NULL DEFAULT 0,
      shares BIGINT NOT NULL DEFAULT 0,
      saves BIGINT NOT NULL DEFAULT 0,
      clicks BIGINT NOT NULL DEFAULT 0,
      conversions BIGINT NOT NULL DEFAULT 0,
      revenue DOUBLE NOT NULL DEFAULT 0,
      spend DOUBLE NOT NULL DEFAULT 0
    )`,
    `CREATE TABLE creator_labels (
      creator_id INTEGER NOT NULL PRIMARY KEY,
      label VARCHAR NOT NULL
    )`,
  ],
};
