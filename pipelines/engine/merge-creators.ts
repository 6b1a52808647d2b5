import { NO_CONTENT } from '../../data/derive/content-metrics.js';
import { recomputeCreatorMetrics, searchTextSql } from '../../data/derive/creator-metrics.js';
import { recordPendingDerivation } from '../../data/derive/pending-derivation.js';
import type { Queryable } from '../../data/store.js';
import { valueColumns } from '../entities/entity.js';
import { ENTITIES } from '../entities/source-entities.js';
import { emitCreatorEvents, snapshotCreators } from './creator-events.js';

export interface MergeResult {
  /** Rows that changed the store (inserted, or updated to different values). */
  changed: number;
  /** Valid rows ignored because the stored row is newer (`updated_at`, `as_of`); 0 for unversioned entities. */
  stale: number;
  events: number;
  /** New creators whose derivation was left to follow the commit (a pending-derivation record says so); 0 when derived in the load. */
  deferred?: number;
  /** Creators whose posts' tags and derivation were left to follow the commit (pipelines/engine/pending-posts.ts); 0 when done in the load. */
  deferredPosts?: number;
  /** Creators whose follower sketch the load rewrote, to be copied to the sketch slots after the commit (docs/audience-overlap.md). */
  sketchesChanged?: number[];
}

/**
 * Options of a creators merge. `deferNewRun` is the run's id when a batch of
 * purely new creators may leave its derivation to follow the commit (a one-file
 * run: a later file of the same transaction must see derived creators).
 */
export interface MergeCreatorsOptions {
  deferNewRun?: string;
  /** The derivation time (default: now). */
  now?: Date;
}

/** The profile columns a creators file carries (all but platform and handle). */
const PROFILE = valueColumns(ENTITIES.creators);

/**
 * Merges valid `stg_typed` creators on (platform, handle): a known creator is
 * updated only by a strictly newer `updated_at` (strictly older rows are counted
 * as stale; an equal one is a re-send); a new one gets the next ids
 * (max + row number — one process owns the file and loads are serialised).
 * Then the touched creators' metrics are re-derived and their changes emitted —
 * except for a batch that only adds creators (no existing one touched, so no
 * events): with `deferNewRun` it records a pending derivation instead, which
 * the runner finishes right after the commit (data/derive/pending-derivation.ts).
 * The derivation is the larger part of a first load's time, and DuckDB reads
 * rows written inside an open transaction at about half speed.
 */
export async function mergeCreators(
  tx: Queryable,
  present: ReadonlySet<string>,
  options: MergeCreatorsOptions = {},
): Promise<MergeResult> {
  // A column the file does not have keeps its stored value; one it has but leaves empty is cleared.
  const updated = PROFILE.filter((f) => present.has(f) || f === 'updated_at');
  await tx.run(`CREATE OR REPLACE TEMP TABLE cr_upd AS
    SELECT * FROM stg_typed WHERE __err IS NULL AND creator_id IS NOT NULL AND updated_at > __cur_version`);
  const stale = await countRows(
    tx,
    'stg_typed WHERE __err IS NULL AND creator_id IS NOT NULL AND updated_at < __cur_version',
  );
  await snapshotCreators(tx, 'cr_upd');
  await tx.run(`UPDATE creators c SET ${updated.map((f) => `"${f}" = ${f === 'verified' ? 'coalesce(u.verified, false)' : `u."${f}"`}`).join(', ')},
      profile_as_of = u.updated_at
    FROM cr_upd u WHERE c.creator_id = u.creator_id`);
  const inserted = await insertNewCreators(tx);
  const updates = await countRows(tx, 'cr_upd');
  if (options.deferNewRun !== undefined && updates === 0 && inserted.count > 0) {
    await recordPendingDerivation(tx, options.deferNewRun, inserted.maxBefore + 1, inserted.maxBefore + inserted.count);
    return { changed: inserted.count, stale, events: 0, deferred: inserted.count };
  }
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE touched_creators AS
    SELECT creator_id FROM cr_upd UNION ALL SELECT creator_id FROM creators WHERE creator_id > ?`,
    [inserted.maxBefore],
  );
  await deriveTouched(tx, options.now);
  const events = await emitCreatorEvents(tx);
  const changedUpdates = (await tx.one<{ n: number }>(`SELECT count(*) AS n FROM creator_changes`))?.n ?? 0;
  return { changed: inserted.count + changedUpdates, stale, events };
}

/** `count(*)` of a `FROM` clause (a table and its filter, no user input). */
export async function countRows(tx: Queryable, from: string): Promise<number> {
  return (await tx.one<{ n: number }>(`SELECT count(*) AS n FROM ${from}`))?.n ?? 0;
}

/**
 * Re-derives the creators in `touched_creators`, and nothing when there are none:
 * a batch of stale rows must not pay for the derivation's store-wide steps.
 */
export async function deriveTouched(tx: Queryable, now: Date = new Date()): Promise<void> {
  const row = await tx.one<{ touched: number; total: number }>(
    'SELECT (SELECT count(*) FROM touched_creators) AS touched, (SELECT count(*) FROM creators) AS total',
  );
  if (!row || row.touched === 0) return;
  // A first load touches everyone: the whole-store path skips filtering every step by a million ids.
  await recomputeCreatorMetrics(tx, row.touched >= row.total ? 'all' : { table: 'touched_creators' }, now);
}

async function insertNewCreators(tx: Queryable): Promise<{ count: number; maxBefore: number }> {
  const maxBefore = (await tx.one<{ m: number }>('SELECT coalesce(max(creator_id), 0) AS m FROM creators'))?.m ?? 0;
  const pending =
    (await tx.one<{ n: number }>('SELECT count(*) AS n FROM stg_typed WHERE __err IS NULL AND creator_id IS NULL'))
      ?.n ?? 0;
  if (pending === 0) return { count: 0, maxBefore };
  // A temp sequence numbers the new rows max + 1, max + 2, …: the same ids as max + row_number(), without a
  // window over the whole batch (which halves the insert's speed at a million rows).
  await tx.run(`CREATE OR REPLACE TEMP SEQUENCE new_creator_ids START ${Math.trunc(maxBefore) + 1}`);
  // The search text is the row's own: computed here, so new creators are searchable by it at the commit. The other
  // derived columns need child rows and scores: the derivation that follows fills them (deriveTouched, or pending).
  // A new creator has no posts, contacts or links yet: its content columns are those of none.
  const content = Object.keys(NO_CONTENT);
  const count =
    await tx.run(`INSERT INTO creators (creator_id, platform, handle, ${PROFILE.map((f) => `"${f}"`).join(', ')}, profile_as_of, search_text,
      ${content.join(', ')})
    SELECT nextval('new_creator_ids'), platform, handle, ${PROFILE.map((f) => (f === 'verified' ? 'coalesce(verified, false)' : `"${f}"`)).join(', ')}, updated_at,
      ${searchTextSql()}, ${Object.values(NO_CONTENT).join(', ')}
    FROM stg_typed WHERE __err IS NULL AND creator_id IS NULL`);
  await tx.run('DROP SEQUENCE new_creator_ids');
  return { count, maxBefore };
}
