import type { Migration } from './migration.js';

/**
 * The authenticity model's working tables: per-creator features (recomputed for
 * the creators a load touched) and the peer statistics (median and MAD per peer
 * group) that turn features into robust z-scores, so one check is a lookup.
 */
export const authenticity: Migration = {
  version: 30,
  name: 'authenticity features and peer statistics',
  statements: [
    `CREATE TABLE authenticity_features (
      creator_id INTEGER NOT NULL,
      platform VARCHAR NOT NULL,
      size_band VARCHAR NOT NULL,
      country VARCHAR,
      language VARCHAR,
      followers BIGINT NOT NULL,
      history_days INTEGER NOT NULL,
      posts_n INTEGER NOT NULL,
      engagement_rate DOUBLE,
      likes_per_comment DOUBLE,
      following_ratio DOUBLE,
      following_growth_pct DOUBLE,
      fake_audience_pct DOUBLE,
      influencers_pct DOUBLE,
      real_pct DOUBLE,
      suspicious_pct DOUBLE,
      mass_followers_pct DOUBLE,
      own_country_pct DOUBLE,
      own_language_pct DOUBLE,
      typical_daily_change_pct DOUBLE,
      spikes_n INTEGER NOT NULL,
      unexplained_spikes_n INTEGER NOT NULL,
      max_unexplained_gain_pct DOUBLE NOT NULL,
      spikes VARCHAR NOT NULL,
      computed_at TIMESTAMP NOT NULL
    )`,
    `CREATE TABLE authenticity_peer_stats (
      metric VARCHAR NOT NULL,
      peer_key VARCHAR NOT NULL,
      n INTEGER NOT NULL,
      median DOUBLE NOT NULL,
      mad DOUBLE NOT NULL,
      basis VARCHAR NOT NULL,
      computed_at TIMESTAMP NOT NULL,
      PRIMARY KEY (metric, peer_key)
    )`,
  ],
};
