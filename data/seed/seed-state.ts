import type { Queryable, Store } from '../store.js';

/** The store or one of its connections. */
type Db = Pick<Queryable, 'one' | 'run'>;

/**
 * Every table the demo seed writes. A seed that did not finish is discarded by
 * re-creating these empty (they were empty before it: seeding needs an empty store).
 */
export const SEEDED_TABLES = [
  'creators', 'creator_labels', 'follower_history', 'posts', 'audience', 'campaigns', 'campaign_creators', 'campaign_metrics',
  'authenticity_features', 'authenticity_peer_stats',
] as const;

/** `empty`: nothing seeded; `interrupted`: a seed started and never finished; `done`: seeded. */
export type SeedStatus = 'empty' | 'interrupted' | 'done';

export async function seedStatus(db: Db): Promise<SeedStatus> {
  const row = await db.one<{ status: string }>('SELECT status FROM seed_state WHERE id = 1');
  if (row?.status === 'running') return 'interrupted';
  return row?.status === 'done' ? 'done' : 'empty';
}

export async function markSeedRunning(db: Db, creators: number, seed: number): Promise<void> {
  await db.run(`INSERT OR REPLACE INTO seed_state (id, status, creators, seed, started_at, finished_at)
    VALUES (1, 'running', ?, ?, current_timestamp::TIMESTAMP, NULL)`, [creators, seed]);
}

export async function markSeedDone(db: Db): Promise<void> {
  await db.run(`UPDATE seed_state SET status = 'done', finished_at = current_timestamp::TIMESTAMP WHERE id = 1`);
}

/**
 * Puts the seeded tables back as they were before the seed — empty — in one
 * transaction. Each is dropped and re-created from its own DDL (and its
 * indexes'), not emptied with DELETE: deleting 365M history rows writes every
 * row id to the WAL, which on a full disk is the very write that fails.
 */
export async function discardSeed(store: Store): Promise<void> {
  await store.transaction(async (tx) => {
    for (const table of SEEDED_TABLES) {
      const ddl = await tx.one<{ sql: string }>(`SELECT sql FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ?`, [table]);
      if (!ddl) continue;
      const indexes = await tx.all<{ sql: string }>(`SELECT sql FROM duckdb_indexes() WHERE schema_name = 'main' AND table_name = ?`, [table]);
      await tx.run(`DROP TABLE main.${table}`);
      await tx.run(ddl.sql);
      for (const index of indexes) await tx.run(index.sql);
    }
    await tx.run('DELETE FROM seed_state');
  });
}
