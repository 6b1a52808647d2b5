// store.ts imports this module (it migrates on open); this module imports nothing of the store's but its query interface.
import { inTransaction, type Queryable } from '../queryable.js';
import { sourceEntities } from './001-source-entities.js';
import { serviceState } from './002-service-state.js';
import { searchProjection } from './010-search-projection.js';
import { authenticity } from './030-authenticity.js';
import { seedState } from './040-seed-state.js';
import { outboxRelay } from './050-outbox-relay.js';
import { exportLeases } from './053-export-leases.js';
import { runWarnings } from './060-run-warnings.js';
import { runStaleRows } from './065-run-stale-rows.js';
import { keysUsagePlans } from './070-keys-usage-plans.js';
import { authenticityModels } from './080-authenticity-models.js';
import { authenticityJumps } from './084-authenticity-jumps.js';
import { pendingDerivations } from './095-pending-derivations.js';
import { discoveryContent } from './100-discovery-content.js';
import { contactReveals } from './101-contact-reveals.js';
import { creatorContent } from './102-creator-content.js';
import { peerBenchmarks } from './103-peer-benchmarks.js';
import { priceEstimates } from './104-price-estimates.js';
import { pendingPostDerivations } from './105-pending-post-derivations.js';
import { creatorPersonas } from './106-creator-personas.js';
import { followerSamples } from './107-follower-samples.js';
import { authenticityFollowingChurn } from './109-authenticity-following-churn.js';
import { exportMatches } from './110-export-matches.js';
import { followerSketchChecksums } from './111-follower-sketch-checksums.js';
import { authenticityForeignBlock } from './112-authenticity-foreign-block.js';
import { followerSketchesIndex } from './113-follower-sketches-index.js';
import { platformPurges } from './114-platform-purges.js';
import { authenticityPurgeDrop } from './115-authenticity-purge-drop.js';
import { platformPurgesSource } from './116-platform-purges-source.js';
import { authenticityCommentsPerView } from './117-authenticity-comments-per-view.js';
import type { Migration } from './migration.js';

export type { Migration } from './migration.js';

/** Every migration, in order. Add new ones at the end with the next version. */
export const MIGRATIONS: readonly Migration[] = [
  sourceEntities,
  serviceState,
  searchProjection,
  authenticity,
  seedState,
  outboxRelay,
  exportLeases,
  runWarnings,
  runStaleRows,
  keysUsagePlans,
  authenticityModels,
  authenticityJumps,
  pendingDerivations,
  discoveryContent,
  contactReveals,
  creatorContent,
  peerBenchmarks,
  priceEstimates,
  pendingPostDerivations,
  creatorPersonas,
  followerSamples,
  authenticityFollowingChurn,
  exportMatches,
  followerSketchChecksums,
  authenticityForeignBlock,
  followerSketchesIndex,
  platformPurges,
  authenticityPurgeDrop,
  platformPurgesSource,
  authenticityCommentsPerView,
];

/**
 * Applies the migrations not yet recorded in `schema_migrations`, each in its own
 * transaction together with its record. Safe to run on every start. `migrations`
 * is every migration unless a test builds the store an earlier release made.
 */
export async function runMigrations(db: Queryable, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  await db.run(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)`);
  const done = new Set(
    (await db.all<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => r.version),
  );
  const applied: number[] = [];
  for (const migration of migrations) {
    if (done.has(migration.version)) continue;
    try {
      await inTransaction(db, async (tx) => {
        for (const sql of migration.statements) await tx.run(sql);
        await tx.run('INSERT INTO schema_migrations (version, name) VALUES (?, ?)', [
          migration.version,
          migration.name,
        ]);
      });
    } catch (error) {
      throw new Error(`migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`);
    }
    // Checkpointed at once: DuckDB cannot replay some DDL from its WAL (migration.ts), so none is left there for a crash to find.
    await db.run('CHECKPOINT');
    applied.push(migration.version);
  }
  return applied;
}
