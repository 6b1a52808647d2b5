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
 * A sketch's checksum (migration 111): the 53-bit hash of its hash list, made
 * as a follower id's sketch hash is (an exact JavaScript number), which says whether a sketch slot holds the stored
 * sketch (data/audience-overlap/sketch-slots.ts).
 */
export function checksumSql(hashes: string): string {
  return sketchHashSql(hashes);
}

/**
 * Rewrites the sketches of the creators `creatorsSql` names (an SQL query of
 * `creator_id`s) from their stored samples: a creator left without a sample
 * loses its sketch. Set-based: one statement for any number of creators.
 */
export async function rewriteSketches(tx: Queryable, creatorsSql: string, now: Date): Promise<void> {
  await tx.run(`DELETE FROM follower_sketches WHERE creator_id IN (${creatorsSql})`);
  await tx.run(
    `INSERT INTO follower_sketches (creator_id, sample_size, hashes, updated_at, checksum)
    SELECT *, ${checksumSql('hashes')} FROM (
      SELECT creator_id, count(*)::INTEGER AS sample_size, list_sort(min(${sketchHashSql('follower_id')}, ${SKETCH_K})) AS hashes, ?::TIMESTAMP
      FROM follower_samples WHERE creator_id IN (${creatorsSql})
      GROUP BY creator_id ORDER BY creator_id)`,
    [sqlTimestamp(now.getTime())],
  );
}

export interface SketchRow extends Record<string, unknown> {
  creator_id: number;
  followers: number;
  sample_size: number | null;
  hashes: number[] | null;
}

/** The follower counts of the given creators (those that exist). */
export async function selectFollowerCounts(
  db: Store | Queryable,
  creatorIds: readonly number[],
): Promise<Array<{ creator_id: number; followers: number }>> {
  return db.all<{ creator_id: number; followers: number }>(
    `SELECT creator_id, followers FROM creators WHERE creator_id IN (${marks(creatorIds)})`,
    [...creatorIds],
  );
}

/** A stored sketch, with its checksum (null: written before migration 111 filled it). */
export interface StoredSketch extends Record<string, unknown> {
  sample_size: number;
  checksum: number | null;
  hashes: number[];
}

/** The stored sketches of the given creators, by creator id (a creator without a sample has none). */
export async function selectSketchHashes(
  db: Store | Queryable,
  creatorIds: readonly number[],
): Promise<Map<number, StoredSketch>> {
  // the hashes are 53-bit, so DOUBLE holds them exactly and they arrive as numbers, not 20,480 BigInts to convert
  const rows = await db.all<StoredSketch & { creator_id: number }>(
    `SELECT creator_id, sample_size, checksum, hashes::DOUBLE[] AS hashes FROM follower_sketches WHERE creator_id IN (${marks(creatorIds)})`,
    [...creatorIds],
  );
  return new Map(
    rows.map((r) => [r.creator_id, { sample_size: r.sample_size, checksum: r.checksum, hashes: r.hashes }]),
  );
}

/**
 * The sample sizes and checksums of the given creators' sketches, without their
 * lists: DuckDB reads a list column a whole vector (2,048 rows, 32 MB of hashes) at
 * a time, these small columns a few KB (docs/audience-overlap.md, "The sketch slots").
 */
export async function selectSketchKeys(
  db: Store | Queryable,
  creatorIds: readonly number[],
): Promise<Map<number, { sample_size: number; checksum: number | null }>> {
  const rows = await db.all<{ creator_id: number; sample_size: number; checksum: number | null }>(
    `SELECT creator_id, sample_size, checksum FROM follower_sketches WHERE creator_id IN (${marks(creatorIds)})`,
    [...creatorIds],
  );
  return new Map(rows.map((r) => [r.creator_id, { sample_size: r.sample_size, checksum: r.checksum }]));
}

/**
 * Every stored sketch, in chunks, in no set order (to fill the sketch slots at once): an ORDER BY
 * would sort the lists, 16 GB at a million creators, through DuckDB's temporary files.
 */
export function streamSketches(store: Store): AsyncGenerator<Array<StoredSketch & { creator_id: number }>> {
  return store.stream<StoredSketch & { creator_id: number }>(
    'SELECT creator_id, sample_size, checksum, hashes::DOUBLE[] AS hashes FROM follower_sketches',
  );
}

/**
 * The stored sketches of many creators, in chunks, in no set order (a load's changed creators,
 * copied to their slots after its commit): one pass over the sketches joined to the ids, where
 * `selectSketchHashes` in chunks would read the vectors of each chunk's ids again.
 */
export function streamSketchesOf(
  store: Store,
  creatorIds: readonly number[],
): AsyncGenerator<Array<StoredSketch & { creator_id: number }>> {
  return store.stream<StoredSketch & { creator_id: number }>(
    `SELECT creator_id, sample_size, checksum, hashes::DOUBLE[] AS hashes FROM follower_sketches
    WHERE creator_id IN (SELECT unnest(?::DOUBLE[])::INTEGER)`,
    [creatorIds],
  );
}

function marks(values: readonly unknown[]): string {
  return values.map(() => '?').join(', ');
}
