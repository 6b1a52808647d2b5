import { CONFIDENCE, EVIDENCE, MAD_SCALE, PEER_SIGNALS, SPIKES, VERDICT, Z, type PeerSignal } from './model.js';
import { SIGNAL_CODES, TERMS, termSql } from './model-spec.js';
import { metricValueSql, peerKeySql } from './peer-stats.queries.js';
import { weightVector, type TrainedModel } from './trained-model.js';

const clamp01 = (x: string): string => `least(1.0, greatest(0.0, ${x}))`;

/** A model number as a SQL literal; the model was validated (finite) when it was loaded. */
function lit(x: number): string {
  if (!Number.isFinite(x)) throw new Error(`model coefficient is not a finite number: ${x}`);
  return `${x.toPrecision(17)}::DOUBLE`;
}

function zSql(s: PeerSignal, i: number): string {
  return `(${metricValueSql(s, 'f')} - peer_median_${i}) / (${MAD_SCALE} * greatest(peer_mad_${i}, ${s.madFloor}))`;
}

/** Severity 0–1 on one side: how far |z| is past Z.warn, full at Z.full (drives a signal's status). */
function sideSql(z: string, sign: 1 | -1): string {
  return clamp01(`(${sign < 0 ? '-' : ''}${z} - ${Z.warn}) / ${Z.full - Z.warn}`);
}

function severitySql(s: PeerSignal, i: number): string {
  const low = s.side !== 'high' ? sideSql(`z_${i}`, -1) : '0.0';
  const high = s.side !== 'low' ? sideSql(`z_${i}`, 1) : '0.0';
  return `greatest(${low}, ${high})`;
}

const SPIKE_SEVERITY = `CASE WHEN f.unexplained_spikes_n > 0
  THEN ${clamp01(`f.max_unexplained_gain_pct / 100.0 / ${SPIKES.fullPenaltyGain}`)} ELSE 0.0 END`;

/** The peer-statistics columns a scoring source carries per peer signal i. */
export const PEER_COLUMNS: Readonly<Record<string, string>> = Object.fromEntries(
  PEER_SIGNALS.flatMap((_, i) => [
    [`peer_median_${i}`, 'DOUBLE'],
    [`peer_mad_${i}`, 'DOUBLE'],
    [`peer_n_${i}`, 'INTEGER'],
    [`peer_basis_${i}`, 'VARCHAR'],
  ]),
);

/**
 * Feature rows of `source` with each peer signal's group statistics joined on (the bulk path): one join per kind
 * of peer group (size band, platform, country, …), to the statistics of that kind's signals turned into columns,
 * not one join per signal — the statement a small load plans is the larger part of its cost.
 */
export function withPeerStatsSql(source: string): string {
  const kinds = [...new Set(PEER_SIGNALS.map((s) => s.peers))];
  const joins = kinds.map((kind, k) => {
    const signals = PEER_SIGNALS.flatMap((s, i) => (s.peers === kind ? [[s, i] as const] : []));
    const pivot = signals.map(([s, i]) =>
      ['median', 'mad', 'n', 'basis']
        .map((col) => `any_value(${col}) FILTER (WHERE metric = '${s.metric}') AS ${col}_${i}`)
        .join(', '),
    );
    const metrics = signals.map(([s]) => `'${s.metric}'`).join(', ');
    const first = signals[0]?.[0];
    return (
      `LEFT JOIN (SELECT peer_key, ${pivot.join(', ')} FROM authenticity_peer_stats WHERE metric IN (${metrics}) ` +
      `GROUP BY peer_key) g${k} ON g${k}.peer_key = ${first ? peerKeySql(first, 'f') : 'NULL'}`
    );
  });
  const cols = PEER_SIGNALS.map((s, i) => {
    const g = `g${kinds.indexOf(s.peers)}`;
    return `${g}.median_${i} AS peer_median_${i}, ${g}.mad_${i} AS peer_mad_${i}, ${g}.n_${i} AS peer_n_${i}, ${g}.basis_${i} AS peer_basis_${i}`;
  });
  return `(SELECT f.*, ${cols.join(', ')} FROM ${source} f ${joins.join(' ')})`;
}

/**
 * Feature rows with each peer signal's robust z-score (`z_i`, NULL when the
 * metric or its peers are missing), its status severity (`severity_i`), the
 * spike severity, and every model term's value as the list `term_values`
 * (TERMS order): what training reads and what scoring weighs.
 */
export function termsSelectSql(sourceWithPeers: string): string {
  const zCols = PEER_SIGNALS.map((s, i) => `${zSql(s, i)} AS z_${i}`);
  const sevCols = PEER_SIGNALS.map((s, i) => `${severitySql(s, i)} AS severity_${i}`);
  return `(WITH zs AS (
      SELECT f.*, ${zCols.join(', ')} FROM ${sourceWithPeers} f
    )
    SELECT *, ${sevCols.join(', ')}, ${SPIKE_SEVERITY} AS spike_severity, [${TERMS.map(termSql).join(', ')}] AS term_values
    FROM zs f)`;
}

/** How a scoring query reads term j's value (TERMS order): from the `term_values` list, or computed in place. */
type TermValue = (j: number) => string;

const fromTermList: TermValue = (j) => `term_values[${j + 1}]`;
const termInPlace: TermValue = (j) => {
  const term = TERMS[j];
  if (!term) throw new Error(`no model term ${j}`);
  return `(${termSql(term)})`;
};

/** Σ weight × term over one signal's terms, in raw logit units; '0.0' when the model weighs none of them. */
function signalLogitSql(code: string, weights: readonly number[], term: TermValue): string {
  const parts = TERMS.flatMap((t, j) =>
    t.code === code && (weights[j] ?? 0) > 0 ? [`${lit(weights[j] ?? 0)} * ${term(j)}`] : [],
  );
  return parts.length > 0 ? parts.join(' + ') : '0.0';
}

/**
 * Each signal's calibrated logit contribution `contrib_k` (SIGNAL_CODES order),
 * their sum, and the sum over the evidence signals alone (EVIDENCE).
 */
function contributionsSql(model: TrainedModel, term: TermValue): { columns: string[]; sum: string; evidence: string } {
  const weights = weightVector(model);
  const columns = SIGNAL_CODES.map(
    (code, k) => `${lit(model.calibration.a)} * (${signalLogitSql(code, weights, term)}) AS contrib_${k}`,
  );
  const evidence = SIGNAL_CODES.flatMap((code, k) =>
    (EVIDENCE.signals as readonly string[]).includes(code) ? [`contrib_${k}`] : [],
  );
  return {
    columns,
    sum: SIGNAL_CODES.map((_, k) => `contrib_${k}`).join(' + '),
    evidence: evidence.length > 0 ? evidence.join(' + ') : '0.0',
  };
}

/** The calibrated probability of fraud from the summed contributions `sum`, before the evidence rule. */
function rawProbabilitySql(model: TrainedModel, sum: string): string {
  const { a, b } = model.calibration;
  return `1.0 / (1.0 + exp(-(${lit(a * model.coefficients.intercept + b)} + ${sum})))`;
}

/** Where the evidence rule's band starts (EVIDENCE): cap − band. */
const HOLD_FROM = EVIDENCE.cap - EVIDENCE.band;

/**
 * Whether the evidence rule holds the probability (EVIDENCE): above the band's
 * start while the evidence signals alone add less than `minLogit`.
 */
function heldSql(raw: string, evidence: string): string {
  return `(${raw} > ${lit(HOLD_FROM)} AND (${evidence}) < ${lit(EVIDENCE.minLogit)})`;
}

/** The probability a creator is scored with: the raw one, or without evidence squeezed in order into [cap − band, cap). */
const PROBABILITY_SQL = `CASE WHEN held_by_evidence
  THEN ${lit(HOLD_FROM)} + ${lit(EVIDENCE.band * 0.999)} * (raw_probability - ${lit(HOLD_FROM)}) / ${lit(1 - HOLD_FROM)}
  ELSE raw_probability END`;

const SCORE_SQL = 'round(100.0 * (1.0 - fraud_probability), 1)';

const VERDICT_SQL = `CASE WHEN authenticity_score >= ${VERDICT.authentic} THEN 'authentic'
  WHEN authenticity_score >= ${VERDICT.questionable} THEN 'questionable' ELSE 'suspicious' END`;

/** Expected fake share: P(fraud) × the share a fraudulent account like this one would carry. */
function fakeFollowersSql(model: TrainedModel): string {
  return `round(100.0 * fraud_probability * least(1.0, greatest(${lit(model.calibration.fake_share)}, coalesce(fake_audience_pct, 0) / 100.0,
    total_unexplained_gain_pct / (100.0 + total_unexplained_gain_pct))), 1)`;
}

/** The probability of a creator with nothing unusual (every term 0): the zero point of the penalties. */
export function baselineProbability(model: TrainedModel): number {
  const { a, b } = model.calibration;
  return 1 / (1 + Math.exp(-(a * model.coefficients.intercept + b)));
}

/**
 * Scores rows of features with their peer statistics (`withPeerStatsSql`, or
 * one creator's values bound as parameters) with `model`. Answers every input
 * column plus `z_i`, `severity_i`, `term_values`; per signal k (SIGNAL_CODES
 * order) its calibrated logit contribution `contrib_k` and its score points
 * `penalty_k`; the calibrated `fraud_probability`; and the score (100 × (1 − P)),
 * verdict, fake-follower estimate and confidence. Set-based: the same
 * statement scores one creator or a million.
 */
export function scoringSelectSql(sourceWithPeers: string, model: TrainedModel): string {
  const { columns: contribs, sum, evidence } = contributionsSql(model, fromTermList);
  const p0 = baselineProbability(model);
  const penalties = SIGNAL_CODES.map(
    (_, k) =>
      `CASE WHEN (${sum}) > 0 THEN 100.0 * greatest(0.0, fraud_probability - ${lit(p0)}) * contrib_${k} / (${sum}) ELSE 0.0 END AS penalty_${k}`,
  );
  const counted = PEER_SIGNALS.flatMap((s, i) => (CONFIDENCE.notCounted.includes(s.code) ? [] : [i]));
  const unevaluated = `(${counted.map((i) => `(z_${i} IS NULL)::INTEGER`).join(' + ')})`;
  return `WITH t AS (
      SELECT *, ${contribs.join(', ')} FROM ${termsSelectSql(sourceWithPeers)}
    ), ${probabilityCtes(model, sum, evidence)}, totals AS (
      SELECT *, ${penalties.join(', ')}, ${SCORE_SQL} AS authenticity_score FROM q
    )
    SELECT *, ${VERDICT_SQL} AS verdict, ${fakeFollowersSql(model)} AS fake_followers_pct,
      CASE WHEN held_by_evidence THEN 'low'
           WHEN history_days < ${CONFIDENCE.lowHistoryDays} OR posts_n < ${CONFIDENCE.lowPosts} THEN 'low'
           WHEN history_days < ${CONFIDENCE.highHistoryDays} OR posts_n < ${CONFIDENCE.highPosts}
             OR fake_audience_pct IS NULL OR ${unevaluated} >= ${CONFIDENCE.maxUnevaluated} THEN 'medium'
           ELSE 'high' END AS confidence
    FROM totals`;
}

/**
 * The CTEs `r`, `p` and `q` over `t` (a row of term contributions): the raw
 * probability and the evidence logit, whether the evidence rule holds the
 * creator back, and the calibrated `fraud_probability`; one text for the full
 * and the stored scoring, so both give the same values to the last bit.
 */
function probabilityCtes(model: TrainedModel, sum: string, evidence: string): string {
  return `r AS (
      SELECT *, ${rawProbabilitySql(model, sum)} AS raw_probability, ${evidence} AS evidence_logit FROM t
    ), p AS (
      SELECT *, ${heldSql('raw_probability', 'evidence_logit')} AS held_by_evidence FROM r
    ), q AS (
      SELECT *, ${PROBABILITY_SQL} AS fraud_probability FROM p
    )`;
}

/**
 * Only what `creators` stores of a score — `creator_id`, `authenticity_score`,
 * `fake_followers_pct`, `verdict` — for rows of `withPeerStatsSql`: the same
 * expressions as `scoringSelectSql`, in the same order (so the same values to
 * the last bit), without what only an explanation or training reads (severities,
 * the `term_values` list, per-signal penalties, confidence), which is most of
 * the work at a million rows.
 */
export function storedScoreSelectSql(sourceWithPeers: string, model: TrainedModel): string {
  const { columns: contribs, sum, evidence } = contributionsSql(model, termInPlace);
  const zCols = PEER_SIGNALS.map((s, i) => `${zSql(s, i)} AS z_${i}`);
  return `WITH zs AS (
      SELECT f.*, ${zCols.join(', ')} FROM ${sourceWithPeers} f
    ), t AS (
      SELECT *, ${contribs.join(', ')} FROM zs
    ), ${probabilityCtes(model, sum, evidence)}, totals AS (
      SELECT *, ${SCORE_SQL} AS authenticity_score FROM q
    )
    SELECT creator_id, authenticity_score, ${fakeFollowersSql(model)} AS fake_followers_pct, ${VERDICT_SQL} AS verdict FROM totals`;
}
