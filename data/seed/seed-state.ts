import type { SqlRunner } from '../state/state-db.js';
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { quoteIdent } from '../sql.js';
import type { Queryable } from '../queryable.js';

/**
 * The store as the seed state needs it (`Store` fits). Typed here rather than
 * imported: the store discards an interrupted seed when it opens, so it imports
 * this module, and this module must not import it back.
 */
interface SeedStore extends SqlRunner {
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
}

/**
 * Every table the demo seed writes. A seed that did not finish is discarded by
 * re-creating these empty (they were empty before it: seeding needs an empty store).
 */
export const SEEDED_TABLES = [
  'creators',
  'creator_labels',
  'creator_personas',
  'follower_history',
  'posts',
  'audience',
  'campaigns',
  'campaign_creators',
  'campaign_metrics',
  'authenticity_features',
  'authenticity_peer_stats',
  'creator_contacts',
  'linked_accounts',
  'creator_content',
  'peer_groups',
  'follower_samples',
  'follower_sketches',
  'platform_purges',
] as const;

/** `empty`: nothing seeded; `interrupted`: a seed started and never finished; `done`: seeded. */
export type SeedStatus = 'empty' | 'interrupted' | 'done';

export async function seedStatus(db: SqlRunner): Promise<SeedStatus> {
  const row = await db.one<{ status: string }>('SELECT status FROM seed_state WHERE id = 1');
  if (row?.status === 'running') return 'interrupted';
  return row?.status === 'done' ? 'done' : 'empty';
}

export async function markSeedRunning(db: SqlRunner, creators: number, seed: number): Promise<void> {
  await db.run(
    `INSERT OR REPLACE INTO seed_state (id, status, creators, seed, started_at, finished_at)
    VALUES (1, 'running', ?, ?, current_timestamp::TIMESTAMP, NULL)`,
    [creators, seed],
  );
}

export async function markSeedDone(db: SqlRunner): Promise<void> {
  await db.run(`UPDATE seed_state SET status = 'done', finished_at = current_timestamp::TIMESTAMP WHERE id = 1`);
}

/**
 * Puts the seeded tables back as they were before the seed — empty — in one
 * transaction. Each is dropped and re-created from its own DDL (and its
 * indexes'), not emptied with DELETE: deleting 365M history rows writes every
 * row id to the WAL, which on a full disk is the very write that fails.
 */
export async function discardSeed(store: SeedStore): Promise<void> {
  await store.transaction(async (tx) => {
    for (const table of SEEDED_TABLES) {
      const ddl = await tx.one<{ sql: string }>(
        `SELECT sql FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = ?`,
        [table],
      );
      if (!ddl) continue;
      const indexes = await tx.all<{ sql: string }>(
        `SELECT sql FROM duckdb_indexes() WHERE schema_name = 'main' AND table_name = ?`,
        [table],
      );
      await tx.run(`DROP TABLE main.${quoteIdent(table)}`);
      await tx.run(ddl.sql);
      for (const index of indexes) await tx.run(index.sql);
    }
    await tx.run('DELETE FROM seed_state');
  });
}

/** Discards a seed that started and never finished (a crash, a full disk); answers whether there was one. */
export async function discardInterruptedSeed(store: SeedStore): Promise<boolean> {
  if ((await seedStatus(store)) !== 'interrupted') return false;
  await discardSeed(store);
  await store.run('CHECKPOINT');
  return true;
}

/** Store bytes per seeded creator, measured at 1M (2.66 GB), with a fifth more for DuckDB's WAL and temp files. */
export const SEED_BYTES_PER_CREATOR = 3_200;

/** There is not enough free disk for the seed asked for; nothing was written. */
export class SeedDiskSpaceError extends Error {
  override name = 'SeedDiskSpaceError';
}

/**
 * Refuses a seed the disk cannot hold before writing anything: a seed that
 * fills the disk part-way can only be discarded by the next open of the store.
 */
export function assertSeedFits(
  storePath: string,
  creators: number,
  freeBytes: (dir: string) => number = freeBytesIn,
): void {
  if (storePath === ':memory:') return;
  const dir = dirname(storePath);
  const needed = creators * SEED_BYTES_PER_CREATOR;
  const free = freeBytes(dir);
  if (free < needed) {
    throw new SeedDiskSpaceError(
      `not enough disk space for ${creators.toLocaleString('en-US')} creators: needs about ${formatBytes(needed)} free in ${dir}, ` +
        `${formatBytes(free)} free; nothing was written`,
    );
  }
}

function freeBytesIn(dir: string): number {
  const s = statfsSync(dir);
  return Number(s.bavail) * Number(s.bsize);
}

function formatBytes(n: number): string {
  return n >= 1e9 ? `${(n / 1e9).toFixed(1)} GB` : `${Math.round(n / 1e6)} MB`;
}
