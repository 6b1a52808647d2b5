import { FOLLOWING, PEER_SIGNALS, type PeerSignal } from './model.js';

/**
 * The feature specification of the trained model (v2). Every signal gives a
 * deviation on its suspicious side — a robust z-score against peers, or the
 * unexplained follower gain for spikes — and each deviation enters the model
 * through capped hinge terms (two for most sources; one for "any unexplained jump"):
 *
 *     φ1 = clamp((v − k0) / (k1 − k0), 0, 1)    φ2 = clamp((v − k1) / (k2 − k1), 0, 1)
 *
 * With non-negative weights this is a monotone additive model: a more unusual
 * value never lowers the fraud logit, nothing normal (v ≤ k0) adds to it, and
 * the caps keep one extreme value from deciding alone. A missing value (no
 * data, too few peers) makes both terms 0, so missing data is never a penalty.
 */
export const FEATURE_SPEC_VERSION = 'auth-features-8';

/**
 * Model versions carry the feature specification's number (`auth-8.0` is the
 * built-in model of `auth-features-8`), so a version says which features it
 * weighs; `n` is the trained model's number in its store (model.ops.ts: one
 * more than the models it holds, older specifications' included).
 */
export function modelVersion(n: number): string {
  return `auth-${FEATURE_SPEC_VERSION.replace(/^auth-features-/, '')}.${n}`;
}

/**
 * Specifications a stored model may name. A model of an older specification
 * still scores: its terms are looked up by name and a term it does not know
 * weighs 0 (auth-features-3 added residual jumps and the mass-follower share,
 * and weighs the following ratio only without mutual growth; auth-features-4
 * added `follower_jumps:any` — a single unexplained jump — and the
 * suspicious-account share of the audience against peers; auth-features-5
 * added `following_churn`, follow/unfollow sprees, and `likes_per_view`;
 * auth-features-6 added `audience_foreign_block`, the audience's second-largest
 * foreign country against peers from the creator's country; auth-features-7
 * added `purge_drop`, the followers lost on the days the platform purged bots,
 * against peers on that platform; auth-features-8 added `comments_per_view`, the
 * typical post's comments per view against peers: comments no viewers brought). No term changed
 * its meaning between specifications: new evidence comes as new terms.
 */
export const KNOWN_FEATURE_SPECS = [
  'auth-features-2',
  'auth-features-3',
  'auth-features-4',
  'auth-features-5',
  'auth-features-6',
  'auth-features-7',
  FEATURE_SPEC_VERSION,
] as const;

/** Where a term's deviation comes from. */
export interface TermSource {
  /** The explained signal the term belongs to (its contributions add up under this code). */
  code: string;
  side: 'low' | 'high' | 'gain' | 'count' | 'any';
  /** Knots k0 < k1 < … on the deviation's scale: one hinge term between each two neighbours. */
  knots: readonly number[];
}

/** One model input: a hinge of a signal's deviation. */
export interface Term extends TermSource {
  /** `code:side:h`, h = 1 for the first hinge. */
  name: string;
  hinge: number;
}

const Z_KNOTS = [1, 3, 6] as const;
/** Unexplained one-day gains, percent of followers, summed over the history. */
const GAIN_KNOTS = [0.5, 5, 30] as const;
/** Unexplained residual jumps, counted: several are a pattern (a single one is the `any` term's, below). */
const JUMP_KNOTS = [1, 2, 4] as const;
/**
 * Any unexplained residual jump: the first one, full at one. Legitimate
 * creators of both demo worlds almost never have one (0.14 % in the harder
 * setting), while subtle fraud bought in lots often leaves only one or two
 * that stand out from a noisy history.
 */
const ANY_JUMP_KNOTS = [0, 1] as const;

/** The (signal, side) sources, spikes first, then every peer signal's suspicious side(s). */
export const SOURCES: readonly TermSource[] = [
  { code: 'follower_spikes', side: 'gain', knots: GAIN_KNOTS },
  { code: 'follower_jumps', side: 'count', knots: JUMP_KNOTS },
  { code: 'follower_jumps', side: 'any', knots: ANY_JUMP_KNOTS },
  ...PEER_SIGNALS.flatMap((s): TermSource[] => [
    ...(s.side !== 'high' ? [{ code: s.code, side: 'low' as const, knots: s.knots ?? Z_KNOTS }] : []),
    ...(s.side !== 'low' ? [{ code: s.code, side: 'high' as const, knots: s.knots ?? Z_KNOTS }] : []),
  ]),
];

/** Every term of the model, in a fixed order (the coefficient vector's order). */
export const TERMS: readonly Term[] = SOURCES.flatMap((src) =>
  src.knots.slice(1).map((_, i) => ({
    ...src,
    hinge: i + 1,
    name: `${src.code}:${src.side}:${i + 1}`,
  })),
);

/** The signal codes the explanation lists, in order. */
export const SIGNAL_CODES: readonly string[] = [
  'follower_spikes',
  'follower_jumps',
  ...PEER_SIGNALS.map((s) => s.code),
];

/** A hinge of a deviation, in JS (training, tests). Null deviation → 0. */
export function hinge(v: number | null, knots: readonly number[], which: number): number {
  const lo = knots[which - 1];
  const hi = knots[which];
  if (v === null || !Number.isFinite(v) || lo === undefined || hi === undefined) return 0;
  return Math.min(1, Math.max(0, (v - lo) / (hi - lo)));
}

function peerIndex(code: string): number {
  return PEER_SIGNALS.findIndex((s: PeerSignal) => s.code === code);
}

/**
 * SQL for a source's deviation over a scored row that carries `z_i` per peer
 * signal, `total_unexplained_gain_pct` and `unexplained_jumps_n`; NULL when it
 * cannot be evaluated. The following ratio counts only when following grew
 * faster than followers (FOLLOWING): a high ratio with mutual growth is a
 * follow-back habit, not evidence.
 */
export function deviationSql(src: TermSource): string {
  if (src.side === 'gain') return `CASE WHEN history_days >= 2 THEN total_unexplained_gain_pct END`;
  if (src.side === 'count' || src.side === 'any') return `unexplained_jumps_n::DOUBLE`;
  const i = peerIndex(src.code);
  if (src.code === 'following_ratio') {
    return `CASE WHEN z_${peerIndex('following_growth')} >= ${FOLLOWING.minGrowthZ} THEN z_${i} END`;
  }
  return src.side === 'low' ? `(-z_${i})` : `z_${i}`;
}

/** SQL for one term's value (0 when the deviation is NULL). */
export function termSql(term: Term): string {
  const lo = term.knots[term.hinge - 1] ?? 0;
  const hi = term.knots[term.hinge] ?? lo + 1;
  return `coalesce(least(1.0, greatest(0.0, (${deviationSql(term)} - ${lo}) / ${hi - lo})), 0.0)`;
}
