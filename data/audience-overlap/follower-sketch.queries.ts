import type { Queryable } from '../queryable.js';
import { sqlTimestamp } from '../sql.js';
import type { Store } from '../store.js';

/**
 * Hashes a sketch keeps per creator: the KMV sketch of a sample holds its
 * `SKETCH_K` smallest follower-id hashes, so an overlap request reads and merges
 * at most this many per creator whatever the follower count (docs/audience-overlap.md).
 */
export const SKETCH_K = 2048;

/**
 * A follower id's sketch hash: DuckDB's 64-bit `hash`, shifted to 53 bits so it
 * is an exact JavaScript number (collisions among a few million ids stay
 * below one in a thousand). Every sketch, loaded or seeded, is made with this one expression.
 */
export function sketchHashSql(followerId: string): string {
  return `(hash(${followerId}) >> 11)::BIGINT`;
}

/**
 * Rewrites the sketches of the creators `creatorsSql` names (an SQL query of
 * `creator_id`s) from their stored samples: a creator left without a sample
 * loses its sketch. Set-based: one statement for any number of creators.
 */
export async function rewriteSketches(tx: Queryable, creatorsSql: string, now: Date): Promise<void> {
  await tx.run(`DELETE FROM follower_sketches WHERE creator_id IN (${creatorsSql})`);
  await tx.run(
    `INSERT INTO follower_sketches (creator_id, sample_size, hashes, updated_at)
    SELECT creator_id, count(*)::INTEGER, list_sort(min(${sketchHashSql('follower_id')}, ${SKETCH_K})), ?::TIMESTAMP
    FROM follower_samples WHERE creator_id IN (${creatorsSql})
    GROUP BY creator_id ORDER BY creator_id`,
    [sqlTimestamp(now.getTime())],
  );
}

export interface SketchRow extends Record<string, unknown> {
  creator_id: number;
  followers: number;
  sample_size: number | null;
  hashes: number[] | null;
}

/**
 * The follower counts and sketches (null: no sample) of the given creators. Two
 * lookups, not a join: a join reads every stored sketch to build its hash table,
 * where a filter on the sketches reads only the requested rows' lists.
 */
export async function selectSketches(db: Store | Queryable, creatorIds: readonly number[]): Promise<SketchRow[]> {
  const [creators, sketches] = await Promise.all([
    db.all<{ creator_id: number; followers: number }>(
      `SELECT creator_id, followers FROM creators WHERE creator_id IN (${marks(creatorIds)})`,
      [...creatorIds],
    ),
    selectSketchHashes(db, creatorIds),
  ]);
  return creators.map((c) => ({
    ...c,
    sample_size: sketches.get(c.creator_id)?.sample_size ?? null,
    hashes: sketches.get(c.creator_id)?.hashes ?? null,
  }));
}

/** The stored sketches of the given creators, by creator id (a creator without a sample has none). */
export async function selectSketchHashes(
  db: Store | Queryable,
  creatorIds: readonly number[],
): Promise<Map<number, { sample_size: number; hashes: number[] }>> {
  // the hashes are 53-bit, so DOUBLE holds them exactly and they arrive as numbers, not 20,480 BigInts to convert
  const rows = await db.all<{ creator_id: number; sample_size: number; hashes: number[] }>(
    `SELECT creator_id, sample_size, hashes::DOUBLE[] AS hashes FROM follower_sketches WHERE creator_id IN (${marks(creatorIds)})`,
    [...creatorIds],
  );
  return new Map(rows.map((r) => [r.creator_id, { sample_size: r.sample_size, hashes: r.hashes }]));
}

function marks(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}
