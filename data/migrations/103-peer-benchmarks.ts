import { peerBenchmarkStatements } from '../derive/peer-benchmarks.js';
import type { Migration } from './migration.js';

/**
 * Peer benchmarks (docs/benchmarks.md): one row per peer group (platform ×
 * niche × follower band) with its bounds, its size and, per benchmarked metric,
 * the sorted values of the peers that have one — what a profile's percentiles
 * are counted from. The derivation keeps it current after every load
 * (data/derive/peer-benchmarks.ts); here it is filled once for the creators a
 * store already has. No key constraint: the derivation deletes and re-inserts a
 * group's row in one transaction.
 */
export const peerBenchmarks: Migration = {
  version: 103,
  name: 'peer benchmarks',
  statements: [
    `CREATE TABLE peer_groups (
      platform VARCHAR NOT NULL,
      niche VARCHAR NOT NULL,
      followers_from BIGINT NOT NULL,
      followers_to BIGINT,
      creators INTEGER NOT NULL,
      engagement_rate DOUBLE[] NOT NULL,
      growth_30d DOUBLE[] NOT NULL,
      avg_views DOUBLE[] NOT NULL,
      authenticity_score DOUBLE[] NOT NULL
    )`,
    ...peerBenchmarkStatements('all'),
  ],
};
