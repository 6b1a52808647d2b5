import { SIGNAL_CODES } from './model-spec.js';
import {
  CONFIDENCE,
  EVIDENCE,
  FOLLOWING,
  JUMPS,
  MAD_SCALE,
  PEER_SIGNALS,
  SPIKES,
  Z,
  statusOf,
  type PeerSignal,
} from './model.js';
import type { TrainedModel } from './trained-model.js';

export type SignalStatus = 'pass' | 'warn' | 'fail';

/** One explained signal of a verification (docs/authenticity.md). */
export interface Signal {
  code: string;
  label: string;
  /** The creator's value, on the metric's own scale (percent for rates and shares). */
  value: number | null;
  /** The normal range among peers, in words and numbers. */
  expected: string;
  status: SignalStatus;
  detail: string;
  /** Score points this signal took off, from the score of a creator with nothing unusual (its share of the logit). */
  penalty: number;
  /** This signal's additive term of the calibrated fraud logit (0 when normal or not evaluated). */
  contribution: number;
  /** Whether the data to evaluate it exists; a signal without data contributes 0 and lowers `confidence`. */
  available: boolean;
  /** follower_spikes: the spike days, largest first; follower_jumps: the unexplained jump days, largest first. */
  dates?: Array<{ date: string; gain_pct: number; explained: boolean }>;
}

export interface AudienceQuality {
  real_pct: number | null;
  suspicious_pct: number | null;
  mass_followers_pct: number | null;
  influencers_pct: number | null;
}

/** A verification without its id and identity: what the model says about one creator. */
export interface Assessment {
  authenticity_score: number;
  /** Calibrated probability that the followers or engagement are not earned. */
  fraud_probability: number;
  fake_followers_pct: number;
  verdict: 'authentic' | 'questionable' | 'suspicious';
  confidence: 'high' | 'medium' | 'low';
  /** Why the confidence is what it is, in words; for a verdict held at questionable, which signals fired and that none is direct evidence. */
  confidence_reason: string;
  signals: Signal[];
  audience_quality: AudienceQuality;
  data_used: { history_days: number; posts: number };
  model_version: string;
}

type ScoredRow = Record<string, unknown>;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const round = (v: number, digits = 2): number => Math.round(v * 10 ** digits) / 10 ** digits;
const fmt = (v: number): string =>
  Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);

function groupName(signal: PeerSignal, basis: string): string {
  if (basis === '*') return 'all creators';
  switch (signal.peers) {
    case 'size':
      return basis.includes('|') ? `${basis.replace('|', ' creators with ')} followers` : `${basis} creators`;
    case 'platform':
      return `${basis} creators`;
    case 'country':
      return `creators from ${basis}`;
    case 'country_language':
      return `creators from ${basis.replace('|', ' posting in ')}`;
  }
}

/** The band of values |z| < Z.warn maps to, back on the metric's own scale. */
function normalRange(signal: PeerSignal, median: number, mad: number): string {
  const spread = Z.warn * MAD_SCALE * Math.max(mad, signal.madFloor);
  const back = (x: number): number => (signal.log ? Math.exp(x) : x);
  const lo = back(median - spread);
  const hi = back(median + spread);
  const centre = `peer median ${fmt(back(median))}`;
  if (signal.side === 'low') return `≥ ${fmt(Math.max(0, lo))} (${centre})`;
  if (signal.side === 'high') return `≤ ${fmt(hi)} (${centre})`;
  return `${fmt(Math.max(0, lo))}–${fmt(hi)} (${centre})`;
}

function modelShare(row: ScoredRow, k: number): { penalty: number; contribution: number } {
  return { penalty: round(num(row[`penalty_${k}`]) ?? 0, 1), contribution: round(num(row[`contrib_${k}`]) ?? 0, 3) };
}

function peerSignal(signal: PeerSignal, i: number, row: ScoredRow): Signal {
  const value = num(row[signal.metric]);
  const z = num(row[`z_${i}`]);
  const median = num(row[`peer_median_${i}`]);
  const mad = num(row[`peer_mad_${i}`]);
  const base = { code: signal.code, label: signal.label, value: value === null ? null : round(value) };
  if (value === null || z === null || median === null || mad === null) {
    const why = value === null ? 'no data to compute it from' : 'too few comparable creators to judge it';
    return {
      ...base,
      expected: 'n/a',
      status: 'warn',
      detail: `Not evaluated: ${why}.`,
      penalty: 0,
      contribution: 0,
      available: false,
    };
  }
  const severity = num(row[`severity_${i}`]) ?? 0;
  const n = num(row[`peer_n_${i}`]) ?? 0;
  const group = groupName(signal, String(row[`peer_basis_${i}`] ?? '*'));
  const direction = z < 0 ? 'below' : 'above';
  const scale = signal.log ? ' (log scale)' : '';
  return {
    ...base,
    expected: normalRange(signal, median, mad),
    status: statusOf(severity),
    detail: `${fmt(Math.abs(z))} robust SD ${direction} the median of ${n} ${group}${scale}.${mutualNote(signal, row)}`,
    ...modelShare(row, i + 2),
    available: true,
  };
}

/** The following ratio is not weighed while following grows in step with followers (FOLLOWING); say so. */
function mutualNote(signal: PeerSignal, row: ScoredRow): string {
  if (signal.code !== 'following_ratio') return '';
  const growthZ = num(row[`z_${PEER_SIGNALS.findIndex((s) => s.code === 'following_growth')}`]);
  if (growthZ !== null && growthZ >= FOLLOWING.minGrowthZ) return '';
  return growthZ === null
    ? ' Not weighed: no history shows whether the accounts followed grew faster than the followers.'
    : ' Not weighed: the accounts followed grew in step with the followers (a follow-back habit, not churn).';
}

type Day = { date: string; gain_pct: number; explained: boolean };

function jumpSignal(row: ScoredRow): Signal {
  const count = num(row['unexplained_jumps_n']);
  const dates = JSON.parse(String(row['jumps'] ?? '[]')) as Day[];
  const typical = num(row['typical_daily_change_pct']);
  const threshold = typical === null ? null : Math.max(JUMPS.minGain * 100, JUMPS.minZ * JUMPS.sdPerTypical * typical);
  const base = {
    code: 'follower_jumps',
    label: "Unexplained one-day gains against the creator's own day-to-day noise",
  };
  if (count === null) {
    return {
      ...base,
      value: null,
      expected: 'n/a',
      status: 'warn',
      penalty: 0,
      contribution: 0,
      available: false,
      dates,
      detail: `Not evaluated: under ${JUMPS.minHistoryDays} days of follower history to learn the creator's noise from.`,
    };
  }
  const listed = dates.map((d) => `${d.date} (+${d.gain_pct} %)`).join(', ');
  return {
    ...base,
    value: count,
    expected: `at most 1 gain ≥ ${threshold === null ? '' : `${fmt(threshold)} % (`}${JUMPS.minZ} robust SD of the daily changes${threshold === null ? '' : ')'} that no post explains`,
    status: count <= 1 ? 'pass' : count < 3 ? 'warn' : 'fail',
    detail:
      count === 0
        ? 'No unexplained gain stands out from the daily noise.'
        : `${count} one-day gain(s) ≥ ${JUMPS.minZ} robust SD of the creator's daily changes with no post of outsized reach: ${listed}.`,
    ...modelShare(row, 1),
    available: true,
    dates,
  };
}

function spikeSignal(row: ScoredRow): Signal {
  const dates = JSON.parse(String(row['spikes'] ?? '[]')) as Array<{
    date: string;
    gain_pct: number;
    explained: boolean;
  }>;
  const unexplained = dates.filter((d) => !d.explained);
  const days = Number(row['history_days'] ?? 0);
  const listed = (xs: typeof dates): string => xs.map((d) => `${d.date} (+${d.gain_pct} %)`).join(', ');
  let detail: string;
  if (days < 2) detail = 'Not evaluated: no daily follower history.';
  else if (dates.length === 0) detail = `No one-day follower jump in ${days} days of history.`;
  else if (unexplained.length === 0) detail = `Jumps on ${listed(dates)} each follow a post with outsized reach.`;
  else
    detail =
      `Follower jumps with no post of outsized reach within ${SPIKES.postWindowBefore} days before or ` +
      `${SPIKES.postWindowAfter} after: ${listed(unexplained)}.`;
  const severity = num(row['spike_severity']) ?? 0;
  return {
    code: 'follower_spikes',
    label: 'Follower-growth spikes not explained by posting',
    value: Number(row['unexplained_spikes_n'] ?? 0),
    expected: `0 unexplained one-day gains ≥ ${SPIKES.minDailyGain * 100} % of followers`,
    status: days < 2 ? 'warn' : statusOf(severity),
    detail,
    ...modelShare(row, 0),
    available: days >= 2,
    dates,
  };
}

/** Why a check has its confidence (model.ts CONFIDENCE and EVIDENCE), in words. */
function confidenceReason(row: ScoredRow): string {
  if (row['held_by_evidence'] === true) {
    const fired = SIGNAL_CODES.filter((_, k) => (num(row[`contrib_${k}`]) ?? 0) >= 0.05);
    return (
      `Held at questionable: the signals that point to fraud (${fired.join(', ')}) are also how legitimate but unusual ` +
      `creators look, and none of the direct evidence (${EVIDENCE.signals.join(', ')}) does. ` +
      'The data cannot separate fraud from oddity here.'
    );
  }
  switch (row['confidence']) {
    case 'low':
      return `Under ${CONFIDENCE.lowHistoryDays} days of follower history or ${CONFIDENCE.lowPosts} posts.`;
    case 'medium':
      return (
        `Under ${CONFIDENCE.highHistoryDays} days of history or ${CONFIDENCE.highPosts} posts, no audience data, ` +
        `or ${CONFIDENCE.maxUnevaluated} or more signals not evaluated.`
      );
    default:
      return 'History, posts and audience data enough to evaluate every signal.';
  }
}

/** Turns one scored row (scoring.queries.ts) into the explained assessment made with `model`. */
export function toAssessment(row: ScoredRow, model: TrainedModel): Assessment {
  return {
    authenticity_score: Number(row['authenticity_score']),
    fraud_probability: round(Number(row['fraud_probability']), 4),
    fake_followers_pct: Number(row['fake_followers_pct']),
    verdict: row['verdict'] as Assessment['verdict'],
    confidence: row['confidence'] as Assessment['confidence'],
    confidence_reason: confidenceReason(row),
    signals: [spikeSignal(row), jumpSignal(row), ...PEER_SIGNALS.map((s, i) => peerSignal(s, i, row))],
    audience_quality: {
      real_pct: num(row['real_pct']),
      suspicious_pct: num(row['suspicious_pct']),
      mass_followers_pct: num(row['mass_followers_pct']),
      influencers_pct: num(row['influencers_pct']),
    },
    data_used: { history_days: Number(row['history_days'] ?? 0), posts: Number(row['posts_n'] ?? 0) },
    model_version: model.version,
  };
}
