import { hashtagsSql, mentionsSql } from '../../data/derive/caption-parse.js';
import { inTransaction, wrap, type Queryable, type Store } from '../../data/store.js';
import { emitCreatorEvents, snapshotCreators } from './creator-events.js';
import { deriveTouched } from './merge-creators.js';

/** The temp tables the derivation uses (dropped when it ends). */
const SCOPE_TABLES = ['touched_creators', 'creators_before', 'creators_after', 'creator_changes'] as const;

/**
 * Records, inside a one-file posts load's transaction, that the creators in the
 * temp table `idsTable` (their posts changed or were pruned) still need their
 * tags parsed and their derivation. The rows commit with the posts or not at all.
 */
export async function recordPendingPostDerivation(
  tx: Queryable,
  runId: string,
  idsTable: string,
  loadedAt: Date,
): Promise<number> {
  return tx.run(
    `INSERT INTO pending_post_derivations (run_id, creator_id, loaded_at)
    SELECT DISTINCT ?, creator_id, ?::TIMESTAMP FROM ${idsTable}`,
    [runId, loadedAt.toISOString().replace('Z', '')],
  );
}

/** What the derivation after a posts load did: creators derived and `creator.updated` events written, per run. */
export interface PostDerivationResult {
  creators: number;
  events: number;
  /** The runs whose records it finished. */
  runs: string[];
}

/**
 * Finishes every pending post derivation in one transaction: parses the
 * hashtags and mentions of the pending creators' posts stored without them
 * (caption-parse.ts), re-derives those creators at the time of the latest load
 * that named them, emits their `creator.updated` events, and deletes the
 * records. A crash before the commit leaves the records, and the next call does
 * it all again from the stored rows. Callers run it where loads are serialised
 * (the load queue), so no load writes the same posts meanwhile.
 */
export async function finishPendingPostDerivations(
  store: Pick<Store, 'one' | 'withConnection'>,
): Promise<PostDerivationResult> {
  const pending = await store.one<{ n: number }>('SELECT count(*) AS n FROM pending_post_derivations');
  if (Number(pending?.n ?? 0) === 0) return { creators: 0, events: 0, runs: [] };
  return store.withConnection(async (connection) => {
    const c = wrap(connection);
    try {
      return await inTransaction(c, async (tx) => {
        const runs = (
          await tx.all<{ run_id: string }>('SELECT DISTINCT run_id FROM pending_post_derivations ORDER BY run_id')
        ).map((r) => r.run_id);
        const at = await tx.one<{ ms: number }>('SELECT epoch_ms(max(loaded_at)) AS ms FROM pending_post_derivations');
        await tx.run(`CREATE OR REPLACE TEMP TABLE touched_creators AS
          SELECT DISTINCT creator_id FROM pending_post_derivations WHERE creator_id IN (SELECT creator_id FROM creators)`);
        await snapshotCreators(tx, 'touched_creators');
        await tx.run(`UPDATE posts SET hashtags = ${hashtagsSql('caption')}, mentions = ${mentionsSql('caption')}
          WHERE hashtags IS NULL AND creator_id IN (SELECT creator_id FROM touched_creators)`);
        await deriveTouched(tx, new Date(Number(at?.ms ?? Date.now())));
        const events = await emitCreatorEvents(tx);
        const creators = Number((await tx.one<{ n: number }>('SELECT count(*) AS n FROM touched_creators'))?.n ?? 0);
        await tx.run('DELETE FROM pending_post_derivations WHERE run_id IN (SELECT unnest(?::VARCHAR[]))', [runs]);
        return { creators, events, runs };
      });
    } finally {
      for (const t of SCOPE_TABLES) await c.run(`DROP TABLE IF EXISTS temp.main.${t}`).catch(() => undefined);
    }
  });
}
