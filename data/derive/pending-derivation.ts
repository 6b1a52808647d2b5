import type { Queryable, Store } from '../store.js';
import { recomputeCreatorMetrics } from './creator-metrics.js';

/** The temp table the derivation after a load scopes itself to (dropped with its transaction's end). */
const SCOPE_TABLE = 'pending_creators';

/**
 * Records, inside a load's transaction, that creators `first`…`last` (the ids
 * the load just added, contiguous) still need their derivation. The row commits
 * with the creators or not at all.
 */
export async function recordPendingDerivation(tx: Queryable, runId: string, first: number, last: number): Promise<void> {
  await tx.run('INSERT OR REPLACE INTO pending_derivations (run_id, first_creator_id, last_creator_id) VALUES (?, ?, ?)', [runId, first, last]);
}

/** How many creators wait for their derivation (0 almost always: a single-row query, cheap before every load). */
export async function pendingCreators(db: Pick<Queryable, 'one'>): Promise<number> {
  const row = await db.one<{ n: number | null }>('SELECT sum(last_creator_id - first_creator_id + 1)::BIGINT AS n FROM pending_derivations');
  return Number(row?.n ?? 0);
}

/**
 * Derives every creator a pending record names — search text, post, growth and
 * audience metrics, authenticity features and score — and deletes the records,
 * in one transaction, so the derivation and the record's removal commit together
 * (a crash in between leaves the record, and the next call does it again: the
 * derivation recomputes from the stored rows, so running it twice is harmless).
 * Scoring stamps `authenticity_checked_at`, which changes the data version: the
 * search index and caches rebuild. Answers how many creators it derived.
 *
 * Callers run it where loads are serialised (the load queue), so no load writes
 * the same creators meanwhile.
 */
export async function finishPendingDerivations(store: Pick<Store, 'one' | 'transaction'>): Promise<number> {
  if ((await pendingCreators(store)) === 0) return 0;
  return store.transaction(async (tx) => {
    await tx.run(`CREATE OR REPLACE TEMP TABLE ${SCOPE_TABLE} AS
      SELECT c.creator_id FROM creators c SEMI JOIN pending_derivations p ON c.creator_id BETWEEN p.first_creator_id AND p.last_creator_id`);
    const row = await tx.one<{ scoped: number; total: number }>(
      `SELECT (SELECT count(*) FROM ${SCOPE_TABLE}) AS scoped, (SELECT count(*) FROM creators) AS total`);
    const scoped = Number(row?.scoped ?? 0);
    // A first load is everyone: the whole-store path skips filtering every step by a million ids.
    if (scoped > 0) await recomputeCreatorMetrics(tx, scoped >= Number(row?.total ?? 0) ? 'all' : { table: SCOPE_TABLE });
    await tx.run('DELETE FROM pending_derivations');
    await tx.run(`DROP TABLE ${SCOPE_TABLE}`);
    return scoped;
  });
}
