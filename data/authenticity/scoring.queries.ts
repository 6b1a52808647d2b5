import { CONFIDENCE, MAD_SCALE, PEER_SIGNALS, SPIKES, VERDICT, Z, type PeerSignal } from './model.js';
import { metricValueSql, peerKeySql } from './peer-stats.queries.js';

const clamp01 = (x: string): string => `least(1.0, greatest(0.0, ${x}))`;

/** A signal's alias in the scoring query: its peer-stats join and its output columns. */
function alias(i: number): string {
  return `p${i}`;
}

function zSql(s: PeerSignal, i: number): string {
  const p = alias(i);
  return `(${metricValueSql(s, 'f')} - ${p}.median) / (${MAD_SCALE} * greatest(${p}.mad, ${s.madFloor}))`;
}

/** Severity 0–1 on the suspicious side(s); NULL when the metric or its peers are missing. */
function severitySql(s: PeerSignal, i: number): string {
  const z = zSql(s, i);
  const span = Z.full - Z.warn;
  const low = s.weightLow > 0 ? clamp01(`(-(${z}) - ${Z.warn}) / ${span}`) : '0.0';
  const high = s.weightHigh > 0 ? clamp01(`((${z}) - ${Z.warn}) / ${span}`) : '0.0';
  return `greatest(${low}, ${high})`;
}

function penaltySql(s: PeerSignal, i: number): string {
  const z = zSql(s, i);
  const span = Z.full - Z.warn;
  const low = s.weightLow > 0 ? `${s.weightLow} * ${clamp01(`(-(${z}) - ${Z.warn}) / ${span}`)}` : '0';
  const high = s.weightHigh > 0 ? `${s.weightHigh} * ${clamp01(`((${z}) - ${Z.warn}) / ${span}`)}` : '0';
  return `coalesce(${low} + ${high}, 0)`;
}

const SPIKE_SEVERITY = `CASE WHEN f.unexplained_spikes_n > 0
  THEN ${clamp01(`f.max_unexplained_gain_pct / 100.0 / ${SPIKES.fullPenaltyGain}`)} ELSE 0.0 END`;

/**
 * Scores the feature rows of `source` (the features table, or a features
 * subquery for one creator) against the stored peer statistics. Answers every
 * feature plus, per peer signal i, `z_i`, `severity_i`, `penalty_i` and the peer
 * group used (`peer_median_i`, `peer_mad_i`, `peer_n_i`, `peer_basis_i`); the
 * spike severity and penalty; and the score, verdict, fake-follower estimate and
 * confidence. Set-based: the same statement scores one creator or a million.
 */
export function scoringSelectSql(source: string): string {
  const joins = PEER_SIGNALS.map((s, i) =>
    `LEFT JOIN authenticity_peer_stats ${alias(i)} ON ${alias(i)}.metric = '${s.metric}' AND ${alias(i)}.peer_key = ${peerKeySql(s, 'f')}`);
  const cols = PEER_SIGNALS.flatMap((s, i) => [
    `${zSql(s, i)} AS z_${i}`, `${severitySql(s, i)} AS severity_${i}`, `${penaltySql(s, i)} AS penalty_${i}`,
    `${alias(i)}.median AS peer_median_${i}`, `${alias(i)}.mad AS peer_mad_${i}`, `${alias(i)}.n AS peer_n_${i}`,
    `${alias(i)}.basis AS peer_basis_${i}`,
  ]);
  const penalties = [...PEER_SIGNALS.map((_, i) => `penalty_${i}`), 'spike_penalty'];
  return `WITH scored AS (
      SELECT f.*, ${cols.join(',\n        ')},
        ${SPIKE_SEVERITY} AS spike_severity,
        ${SPIKES.weight} * ${SPIKE_SEVERITY} AS spike_penalty
      FROM ${source} f
      ${joins.join('\n      ')}
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
             OR fake_audience_pct IS NULL THEN 'medium'
           ELSE 'high' END AS confidence
    FROM totals`;
}
