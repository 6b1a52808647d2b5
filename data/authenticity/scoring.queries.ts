import { CONFIDENCE, MAD_SCALE, PEER_SIGNALS, SPIKES, VERDICT, Z, type PeerSignal } from './model.js';
import { metricValueSql, peerKeySql } from './peer-stats.queries.js';

const clamp01 = (x: string): string => `least(1.0, greatest(0.0, ${x}))`;

/** A signal's alias in the scoring query: its peer-stats join and its output columns. */
function alias(i: number): string {
  return `p${i}`;
}

function zSql(s: PeerSignal, i: number): string {
  return `(${metricValueSql(s, 'f')} - peer_median_${i}) / (${MAD_SCALE} * greatest(peer_mad_${i}, ${s.madFloor}))`;
}

/** Severity 0–1 on one side: how far |z| is past Z.warn, full at Z.full. */
function sideSql(z: string, sign: 1 | -1): string {
  return clamp01(`(${sign < 0 ? '-' : ''}${z} - ${Z.warn}) / ${Z.full - Z.warn}`);
}

/** Severity 0–1 on the suspicious side(s); NULL when the metric or its peers are missing. */
function severitySql(s: PeerSignal, i: number): string {
  const low = s.weightLow > 0 ? sideSql(`z_${i}`, -1) : '0.0';
  const high = s.weightHigh > 0 ? sideSql(`z_${i}`, 1) : '0.0';
  return `greatest(${low}, ${high})`;
}

function penaltySql(s: PeerSignal, i: number): string {
  const low = s.weightLow > 0 ? `${s.weightLow} * ${sideSql(`z_${i}`, -1)}` : '0';
  const high = s.weightHigh > 0 ? `${s.weightHigh} * ${sideSql(`z_${i}`, 1)}` : '0';
  return `coalesce(${low} + ${high}, 0)`;
}

const SPIKE_SEVERITY = `CASE WHEN f.unexplained_spikes_n > 0
  THEN ${clamp01(`f.max_unexplained_gain_pct / 100.0 / ${SPIKES.fullPenaltyGain}`)} ELSE 0.0 END`;

/** The peer-statistics columns a scoring source carries per peer signal i. */
export const PEER_COLUMNS: Readonly<Record<string, string>> = Object.fromEntries(PEER_SIGNALS.flatMap((_, i) => [
  [`peer_median_${i}`, 'DOUBLE'], [`peer_mad_${i}`, 'DOUBLE'], [`peer_n_${i}`, 'INTEGER'], [`peer_basis_${i}`, 'VARCHAR'],
]));

/** Feature rows of `source` with each peer signal's group statistics joined on (the bulk path). */
export function withPeerStatsSql(source: string): string {
  const joins = PEER_SIGNALS.map((s, i) =>
    `LEFT JOIN authenticity_peer_stats ${alias(i)} ON ${alias(i)}.metric = '${s.metric}' AND ${alias(i)}.peer_key = ${peerKeySql(s, 'f')}`);
  const cols = PEER_SIGNALS.map((_, i) => `${alias(i)}.median AS peer_median_${i}, ${alias(i)}.mad AS peer_mad_${i}, `
    + `${alias(i)}.n AS peer_n_${i}, ${alias(i)}.basis AS peer_basis_${i}`);
  return `(SELECT f.*, ${cols.join(', ')} FROM ${source} f ${joins.join(' ')})`;
}

/**
 * Scores rows of features with their peer statistics (`withPeerStatsSql`, or
 * one creator's values bound as parameters). Answers every input column plus,
 * per peer signal i, `z_i`, `severity_i` and `penalty_i`; the spike severity
 * and penalty; and the score, verdict, fake-follower estimate and confidence.
 * Set-based: the same statement scores one creator or a million.
 */
export function scoringSelectSql(sourceWithPeers: string): string {
  const zCols = PEER_SIGNALS.map((s, i) => `${zSql(s, i)} AS z_${i}`);
  const sevCols = PEER_SIGNALS.flatMap((s, i) => [`${severitySql(s, i)} AS severity_${i}`, `${penaltySql(s, i)} AS penalty_${i}`]);
  const penalties = [...PEER_SIGNALS.map((_, i) => `penalty_${i}`), 'spike_penalty'];
  const unevaluated = `(${PEER_SIGNALS.map((_, i) => `(z_${i} IS NULL)::INTEGER`).join(' + ')})`;
  return `WITH zs AS (
      SELECT f.*, ${zCols.join(', ')} FROM ${sourceWithPeers} f
    ), scored AS (
      SELECT *, ${sevCols.join(',\n        ')},
        ${SPIKE_SEVERITY} AS spike_severity,
        ${SPIKES.weight} * ${SPIKE_SEVERITY} AS spike_penalty
      FROM zs f
    ), totals AS (
      SELECT *, round(greatest(0.0, 100.0 - (${penalties.join(' + ')})), 1) AS authenticity_score FROM scored
    )
    SELECT *,
      CASE WHEN authenticity_score >= ${VERDICT.authentic} THEN 'authentic'
           WHEN authenticity_score >= ${VERDICT.questionable} THEN 'questionable' ELSE 'suspicious' END AS verdict,
      round(least(100.0, greatest(coalesce(fake_audience_pct, 0),
        max_unexplained_gain_pct / (1 + max_unexplained_gain_pct / 100.0))), 1) AS fake_followers_pct,
      CASE WHEN history_days < ${CONFIDENCE.lowHistoryDays} OR posts_n < ${CONFIDENCE.lowPosts} THEN 'low'
           WHEN history_days < ${CONFIDENCE.highHistoryDays} OR posts_n < ${CONFIDENCE.highPosts}
             OR fake_audience_pct IS NULL OR ${unevaluated} >= ${CONFIDENCE.maxUnevaluated} THEN 'medium'
           ELSE 'high' END AS confidence
    FROM totals`;
}
