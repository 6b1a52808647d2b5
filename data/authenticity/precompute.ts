import type { Queryable } from '../store.js';
import { quoteIdent, scopeFilter, type CreatorScope } from '../sql.js';
import { featuresSelectSql, type CreatorFilter } from './features.queries.js';
import { refreshPeerStats } from './peer-stats.queries.js';
import { detectPurges } from './purge-detection.queries.js';
import { activeModel } from './model-registry.queries.js';
import { storedScoreSelectSql, withPeerStatsSql } from './scoring.queries.js';
import type { TrainedModel } from './trained-model.js';

/** History rows per features pass when recomputing everyone (100k creators' year): bounds the window sort over them. */
const HISTORY_ROWS_PER_PASS = 36_500_000;

export interface PrecomputeResult {
  creators: number;
  seconds: number;
}

/**
 * Recomputes authenticity for the creators in `scope`, set-based: their
 * features from current history, posts and audience; then every peer group's
 * statistics (cheap, from the stored features of all creators); then the score,
 * fake-follower share, verdict and check time on `creators`, so search can filter
 * and sort on them. Runs at the end of `recomputeCreatorMetrics`.
 */
export async function recomputeAuthenticity(db: Queryable, scope: CreatorScope): Promise<PrecomputeResult> {
  const started = performance.now();
  let creators = 0;
  // purge days for platforms without given ones, found in the history first: the features read them
  if (await purgesStale(db, scope)) await detectPurges(db);
  if (scope === 'all') {
    await db.run('DELETE FROM authenticity_features');
    const range = await db.one<{ lo: number | null; hi: number | null; history: number }>(
      'SELECT min(creator_id) AS lo, max(creator_id) AS hi, (SELECT count(*) FROM follower_history) AS history FROM creators',
    );
    // creator ids split into as many equal ranges as the history needs passes (one pass when there is little history)
    const passes = Math.max(1, Math.ceil((range?.history ?? 0) / HISTORY_ROWS_PER_PASS));
    const width = range?.hi != null && range.lo != null ? Math.ceil((range.hi - range.lo + 1) / passes) : 0;
    for (let lo = range?.lo ?? 1; range?.hi != null && lo <= range.hi; lo += width) {
      const hi = lo + width - 1;
      creators += await insertFeatures(db, (c) => `${c} BETWEEN ${lo} AND ${hi}`);
    }
  } else {
    const inScope: CreatorFilter = (c) => scopeFilter(scope, c);
    await db.run(`DELETE FROM authenticity_features WHERE ${inScope('creator_id')}`);
    creators = await insertFeatures(db, inScope);
  }
  if (await peerStatsStale(db, scope)) await refreshPeerStats(db);
  await scoreCreators(db, scope, await activeModel(db));
  return { creators, seconds: (performance.now() - started) / 1000 };
}

/**
 * Scores the creators `filter` chooses from features computed in the same
 * statement (nothing stored in authenticity_features) against the current peer
 * statistics: the first half of a brand-new batch's derivation, which makes
 * scores visible without writing a million feature rows or rebuilding peer
 * statistics first. `storeNewFeatures` follows.
 */
export async function scoreFromLiveFeatures(db: Queryable, filter: CreatorFilter, model: TrainedModel): Promise<void> {
  await updateScores(db, `(${featuresSelectSql(filter)})`, model);
}

/**
 * The second half of a brand-new batch's derivation: stores the features of the
 * creators `filter` chooses (the creators of `scope`), rebuilds the peer
 * statistics when the policy says so (`peerStatsStale`), and then rescores those
 * creators, writing only the rows whose score changed — so they end exactly as
 * `recomputeAuthenticity(scope)` leaves them. A brand-new creator's score does not
 * move with the peer statistics under the current model (its one peer metric,
 * the following ratio, counts only with follower history), so that write is
 * normally empty.
 */
export async function storeNewFeatures(
  db: Queryable,
  filter: CreatorFilter,
  scope: Exclude<CreatorScope, 'all'>,
): Promise<void> {
  await db.run(`DELETE FROM authenticity_features WHERE ${filter('creator_id')}`);
  await insertFeatures(db, filter);
  if (!(await peerStatsStale(db, scope))) return;
  await refreshPeerStats(db);
  await updateScores(db, `(SELECT * FROM authenticity_features WHERE ${filter('creator_id')})`, await activeModel(db), {
    changedOnly: true,
  });
}

/** A load touching at least this share of creators rebuilds the peer statistics at once. */
const PEER_REFRESH_SHARE = 0.05;
/** Otherwise they are rebuilt once they are older than this (seconds). */
const PEER_REFRESH_MAX_AGE_S = 600;

/**
 * Peer statistics are medians and MADs over whole peer groups (thousands of
 * creators each), so a small load barely moves them, while rebuilding them reads
 * every creator's features (seconds at 1M). They are rebuilt for a full
 * recompute, for a load touching ≥ 5 % of creators, when none exist yet, and
 * when the last rebuild is over 10 minutes old; a small load in between is
 * scored against the current ones.
 */
async function peerStatsStale(db: Queryable, scope: CreatorScope): Promise<boolean> {
  if (scope === 'all') return true;
  const row = await db.one<{ touched: number; total: number; age_s: number | null }>(`SELECT
      (SELECT count(*) FROM ${quoteIdent(scope.table)}) AS touched, (SELECT count(*) FROM creators) AS total,
      (SELECT epoch(current_timestamp::TIMESTAMP - min(computed_at)) FROM authenticity_peer_stats) AS age_s`);
  if (!row || row.age_s === null) return true;
  return row.touched >= PEER_REFRESH_SHARE * row.total || row.age_s > PEER_REFRESH_MAX_AGE_S;
}

/**
 * Purge days are detected again (`detectPurges`) for a full recompute and for a
 * load touching ≥ 5 % of creators (a labelled set loaded at once); a small load
 * keeps the days found before: one day's share over thousands of creators
 * barely moves with it. Features computed earlier read the days they saw until
 * their creators' next recompute.
 */
async function purgesStale(db: Queryable, scope: CreatorScope): Promise<boolean> {
  if (scope === 'all') return true;
  const row = await db.one<{ touched: number; total: number }>(`SELECT
      (SELECT count(*) FROM ${quoteIdent(scope.table)}) AS touched, (SELECT count(*) FROM creators) AS total`);
  return !!row && row.touched >= PEER_REFRESH_SHARE * row.total;
}

async function insertFeatures(db: Queryable, filter: CreatorFilter): Promise<number> {
  return db.run(
    `INSERT INTO authenticity_features BY NAME SELECT *, current_timestamp AS computed_at FROM (${featuresSelectSql(filter)})`,
  );
}

/**
 * Writes score, fake-follower share, verdict and check time on `creators` for
 * the scope from the stored features and peer statistics with `model`. Alone
 * (scope 'all') it is the rescoring after a model is activated: features and
 * peer statistics do not depend on the model.
 */
export async function scoreCreators(db: Queryable, scope: CreatorScope, model: TrainedModel): Promise<void> {
  const source =
    scope === 'all' ? 'authenticity_features' : `(SELECT * FROM authenticity_features WHERE ${scopeFilter(scope)})`;
  await updateScores(db, source, model);
}

/**
 * Writes the stored score columns of `creators` from feature rows `source`.
 * `changedOnly` leaves a row whose score, share and verdict are already these
 * (its check time too: nothing changed for a search cache to see).
 */
async function updateScores(
  db: Queryable,
  source: string,
  model: TrainedModel,
  options: { changedOnly?: boolean } = {},
): Promise<number> {
  const changed = options.changedOnly
    ? `AND (c.authenticity_score IS DISTINCT FROM s.authenticity_score
      OR c.fake_followers_pct IS DISTINCT FROM s.fake_followers_pct OR c.authenticity_verdict IS DISTINCT FROM s.verdict)`
    : '';
  return db.run(`UPDATE creators c SET authenticity_score = s.authenticity_score, fake_followers_pct = s.fake_followers_pct,
      -- the time of scoring, not of the features: a rescoring with another model is a data change search caches must see
      authenticity_verdict = s.verdict, authenticity_checked_at = current_timestamp::TIMESTAMP
    FROM (${storedScoreSelectSql(withPeerStatsSql(source), model)}) s
    WHERE c.creator_id = s.creator_id ${changed}`);
}
