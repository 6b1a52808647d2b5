import { scoreFromLiveFeatures, storeNewFeatures } from '../authenticity/precompute.js';
import { activeModel } from '../authenticity/model-registry.queries.js';
import type { CreatorFilter } from '../authenticity/features.queries.js';
import { inTransaction, wrap, type Queryable, type Store } from '../store.js';
import { recomputeCreatorMetrics, searchTextSql } from './creator-metrics.js';
import { refreshPeerBenchmarks } from './peer-benchmarks.js';
import { priceNewCreators } from './pricing.js';

/** The temp table the derivation after a load scopes itself to (dropped when it ends). */
const SCOPE_TABLE = 'pending_creators';

/** The tables a creator's derived columns are computed from, besides `creators`. */
const CHILD_TABLES = ['follower_history', 'posts', 'audience'] as const;

/**
 * Records, inside a load's transaction, that creators `first`…`last` (the ids
 * the load just added, contiguous) still need their derivation. The row commits
 * with the creators or not at all.
 */
export async function recordPendingDerivation(
  tx: Queryable,
  runId: string,
  first: number,
  last: number,
): Promise<void> {
  await tx.run(
    'INSERT OR REPLACE INTO pending_derivations (run_id, first_creator_id, last_creator_id) VALUES (?, ?, ?)',
    [runId, first, last],
  );
}

/** How many creators wait for their derivation (0 almost always: a single-row query, cheap before every load). */
export async function pendingCreators(db: Pick<Queryable, 'one'>): Promise<number> {
  const row = await db.one<{ n: number | null }>(
    'SELECT sum(last_creator_id - first_creator_id + 1)::BIGINT AS n FROM pending_derivations',
  );
  return Number(row?.n ?? 0);
}

/** What `finishPendingDerivations` reports while it works. */
export interface PendingDerivationHooks {
  /** The scores (and verdicts) of the pending creators committed: searchable by them from now on. */
  onScored?: () => void;
}

/**
 * Derives every creator a pending record names and deletes the records. The
 * creators are brand-new (ids past every earlier one), so normally no history,
 * post or audience row names them, and their derivation is two short
 * transactions on one connection (`deriveBrandNew`): their scores first (what
 * search waits for), then their stored features and the peer statistics. A
 * record whose range has child rows after all is derived the general way
 * (`recomputeCreatorMetrics`) in one transaction. The records go with the last
 * commit, so a crash before it leaves them and the next call does it again: the
 * derivation recomputes from the stored rows, so running it twice is harmless.
 * Scoring stamps `authenticity_checked_at`, which changes the data version: the
 * search index and caches rebuild. Answers how many creators it derived.
 *
 * Callers run it where loads are serialised (the load queue), so no load writes
 * the same creators meanwhile.
 */
export async function finishPendingDerivations(
  store: Pick<Store, 'one' | 'withConnection'>,
  hooks: PendingDerivationHooks = {},
): Promise<number> {
  if ((await pendingCreators(store)) === 0) return 0;
  return store.withConnection(async (connection) => {
    const c = wrap(connection);
    try {
      const ranges = await pendingRanges(c);
      await c.run(
        `CREATE OR REPLACE TEMP TABLE ${SCOPE_TABLE} AS SELECT creator_id FROM creators WHERE ${rangeFilter(ranges)('creator_id')}`,
      );
      const scoped = Number((await c.one<{ n: number }>(`SELECT count(*) AS n FROM ${SCOPE_TABLE}`))?.n ?? 0);
      if (scoped > 0 && (await hasChildRows(c, ranges))) {
        await inTransaction(c, async (tx) => {
          await recomputeCreatorMetrics(tx, { table: SCOPE_TABLE });
          await deleteRecords(tx, ranges);
        });
      } else {
        await deriveBrandNew(c, ranges, scoped, hooks);
      }
      return scoped;
    } finally {
      await c.run(`DROP TABLE IF EXISTS temp.main.${SCOPE_TABLE}`).catch(() => undefined);
    }
  });
}

type IdRange = readonly [number, number];

async function pendingRanges(c: Queryable): Promise<IdRange[]> {
  const rows = await c.all<{ lo: number; hi: number }>(
    'SELECT first_creator_id AS lo, last_creator_id AS hi FROM pending_derivations ORDER BY first_creator_id',
  );
  return rows.map((r) => [Math.trunc(Number(r.lo)), Math.trunc(Number(r.hi))] as const);
}

/**
 * The pending ranges as a filter on a creator-id column: id ranges (integers
 * from the table, no user input), so DuckDB's zone maps skip every row group of
 * the child tables outside them — where a scope table's `IN` would scan them whole.
 */
function rangeFilter(ranges: readonly IdRange[]): CreatorFilter {
  return (column) =>
    ranges.length === 0 ? 'false' : `(${ranges.map(([lo, hi]) => `${column} BETWEEN ${lo} AND ${hi}`).join(' OR ')})`;
}

/** Whether any history, post or audience row names a pending creator (ids of creators no longer stored, say). */
async function hasChildRows(c: Queryable, ranges: readonly IdRange[]): Promise<boolean> {
  const filter = rangeFilter(ranges)('creator_id');
  const row = await c.one<{ found: boolean }>(
    `SELECT ${CHILD_TABLES.map((t) => `EXISTS (SELECT 1 FROM ${t} WHERE ${filter})`).join(' OR ')} AS found`,
  );
  return row?.found === true;
}

/**
 * Brand-new creators have no history, posts or audience, so their post, growth
 * and audience columns stay empty and their search text came with the insert
 * (filled here only for a record an older version left). First transaction:
 * their scores, from features computed in the statement — committed, so search
 * sees them. Second: their stored features, the peer statistics when due, and
 * any score those statistics change (`storeNewFeatures`), the peer groups they
 * joined (peer-benchmarks.ts), their price estimates from the active model
 * (pricing.ts), with the records' removal.
 */
async function deriveBrandNew(
  c: Queryable,
  ranges: readonly IdRange[],
  scoped: number,
  hooks: PendingDerivationHooks,
): Promise<void> {
  const filter = rangeFilter(ranges);
  if (scoped > 0) {
    await inTransaction(c, async (tx) => {
      await tx.run(
        `UPDATE creators SET search_text = ${searchTextSql()} WHERE ${filter('creator_id')} AND search_text IS NULL`,
      );
      await scoreFromLiveFeatures(tx, filter, await activeModel(tx));
    });
    hooks.onScored?.();
  }
  await inTransaction(c, async (tx) => {
    if (scoped > 0) {
      await storeNewFeatures(tx, filter, { table: SCOPE_TABLE });
      await refreshPeerBenchmarks(tx, { table: SCOPE_TABLE });
      await priceNewCreators(tx, { table: SCOPE_TABLE });
    }
    await deleteRecords(tx, ranges);
  });
}

/** Deletes the records derived (not any a load added meanwhile: loads are serialised, but the rule costs nothing). */
async function deleteRecords(tx: Queryable, ranges: readonly IdRange[]): Promise<void> {
  for (const [lo, hi] of ranges) {
    await tx.run('DELETE FROM pending_derivations WHERE first_creator_id = ? AND last_creator_id = ?', [lo, hi]);
  }
}
