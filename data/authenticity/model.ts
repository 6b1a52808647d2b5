/**
 * The authenticity features' parameters: peer groups, spike detection, growth
 * windows and the peer signals, one place for the SQL that computes features
 * for a million creators and the code that explains one verification. The
 * weights live in the trained model (trained-model.ts, model-spec.ts); the
 * `side` of a peer signal says which sides are suspicious and so which model
 * terms exist.
 */

/** Follower bands peers are grouped by (lower bounds), within a platform. */
export const FOLLOWER_BANDS: ReadonlyArray<readonly [number, string]> = [
  [0, '<5k'],
  [5_000, '5k-10k'],
  [10_000, '10k-25k'],
  [25_000, '25k-50k'],
  [50_000, '50k-100k'],
  [100_000, '100k-250k'],
  [250_000, '250k-1m'],
  [1_000_000, '1m-5m'],
  [5_000_000, '5m+'],
];

/** A peer group smaller than this falls back to the wider group (platform, or everyone). */
export const MIN_PEERS = 30;

/** MAD × this estimates a standard deviation for normally distributed data. */
export const MAD_SCALE = 1.4826;

/** Verdict thresholds on the 0–100 score (docs/authenticity.md). */
export const VERDICT = { authentic: 80, questionable: 60 } as const;

/**
 * Confidence: how much data the score rests on. Low under 30 days of history or
 * 6 posts; high from 180 days and 12 posts with audience data and at most two
 * peer signals that could not be evaluated; medium otherwise. Signals in
 * `notCounted` are not counted: `audience_foreign_block` is evaluated exactly
 * when `audience_geography` is (the same data, the same peers), so counting it
 * would count one missing peer group twice, as would `comments_per_view`, evaluated
 * exactly when `likes_per_view` is (both need the posts' views); `purge_drop` is missing when the
 * platform purged no bots during the history, which says nothing about the
 * data held on the creator.
 */
export const CONFIDENCE = {
  lowHistoryDays: 30,
  lowPosts: 6,
  highHistoryDays: 180,
  highPosts: 12,
  maxUnevaluated: 3,
  notCounted: ['audience_foreign_block', 'purge_drop', 'comments_per_view'] as readonly string[],
} as const;

/**
 * Follower-growth spikes. A day counts as a spike when its gain is at least
 * `minDailyGain` of the previous day's followers and `typicalMultiple` times the
 * creator's own typical daily change: the mean absolute daily change, each day
 * capped at `minDailyGain` so the spikes themselves barely move it (as robust as
 * a median and far cheaper to compute); noisy small accounts need more.
 * A spike is explained when a post published from `postWindowBefore` days before
 * to `postWindowAfter` days after it reached `reachMultiple` × the creator's
 * median likes or views: a viral post brings followers, a purchase does not.
 */
export const SPIKES = {
  minDailyGain: 0.01,
  typicalMultiple: 10,
  postWindowBefore: 3,
  postWindowAfter: 1,
  reachMultiple: 2,
  /** Unexplained gain (share of followers) at which the spike penalty is full. */
  fullPenaltyGain: 0.1,
  weight: 40,
  listed: 5,
} as const;

/**
 * Growth features. Steady growth is the sum of daily log changes, each capped
 * at the spike threshold (jumps are judged by the spike signal, explained or
 * not), per year over at least `minSpanDays` of history. Growth against
 * engagement compares the last `recentDays` of steady growth, halved, with the
 * log ratio of median likes between the newer and older half of that window's
 * posts (at least `minPostsPerHalf` each): earned followers bring likes, bought
 * ones do not.
 */
export const GROWTH = { minSpanDays: 60, recentDays: 90, minPostsPerHalf: 4 } as const;

/**
 * Residual jumps: one-day gains measured against the creator's own day-to-day
 * noise, for fraud bought in several small lots that each stay under the spike
 * threshold. A day is a jump when its gain (spread over a missing day's span)
 * is at least `minZ` robust SDs of the creator's daily changes — the typical
 * change × `sdPerTypical` (a mean absolute deviation × √(π/2) estimates an SD)
 * — and at least `minGain` of followers, so near-silent histories do not turn
 * rounding into jumps. Jumps a post explains (as for spikes) do not count.
 * Needs `minHistoryDays` of history to know the creator's noise.
 */
export const JUMPS = { minZ: 4, sdPerTypical: 1.2533, minGain: 0.005, minHistoryDays: 14 } as const;

/**
 * Reverted gains: a one-day gain of which less than `keptShare` is still there
 * in any of the next `lookAhead` readings is a collection glitch (a count read
 * wrong for a day), not followers gained — neither a spike nor a jump. Bought
 * followers stay for weeks (platforms purge them slowly), earned ones stay.
 */
export const REVERTED = { lookAhead: 2, keptShare: 0.5 } as const;

/**
 * Following ratio: a high ratio counts as evidence only when the history shows
 * the accounts followed growing faster than the followers (the following_growth
 * z-score at least `minGrowthZ`). Follow-back accounts follow as they are
 * followed, a legitimate habit; follow/unfollow churn is not mutual. Without
 * that history the ratio is not weighed (missing data never raises the score).
 */
export const FOLLOWING = { minGrowthZ: 1 } as const;

/**
 * Following churn: follow-for-follow follows accounts in sprees and unfollows
 * them in bulk, so the accounts followed go up and down far beyond their net
 * change; a follow-back habit only grows, a steady one hardly moves. Only daily
 * moves of at least `minDailyShare` of the accounts followed and `minAccounts`
 * count (day-to-day noise, rounding and a few follows a day do not), over at least `minSpanDays`.
 */
export const CHURN = { minDailyShare: 0.03, minAccounts: 10, minSpanDays: 30 } as const;

/**
 * Bot purges: a platform removes fake accounts in bulk on a few days
 * (platform_purges). A creator's purge drop is the mean follower change, as a
 * drop, over the readings whose span holds a purge of its platform — readings at
 * most `maxGap` days after the one before, so a missing week does not blur a
 * purge into the growth around it. Bought followers are mostly bots and lose a
 * block; earned audiences lose the few bots every account has, as their peers on
 * the same platform do.
 */
export const PURGES = { maxGap: 3 } as const;

/**
 * Evidence, not oddity (docs/authenticity.md, "An honest middle"). These
 * signals are traces fraud cannot avoid and legitimate oddity does not leave:
 * follower gains no post explains, follow/unfollow sprees, comments out of
 * proportion to likes (pods), likes out of proportion to views (bought likes,
 * pods), comments out of proportion to views (pods), growth the likes did not
 * follow and followers lost when the platform purged bots. Every other
 * signal (an audience spread over many countries, a raised mass-follower share,
 * a high following ratio, unusual engagement) is also how many legitimate
 * creators look. A creator is called suspicious only when the evidence signals
 * alone add at least `minLogit` to the calibrated logit; otherwise a
 * probability above `cap − band` is squeezed into [cap − band, cap) — still in
 * order, so rankings keep their information, but never past questionable — and
 * its confidence is low, with the reason.
 */
export const EVIDENCE = {
  signals: [
    'follower_spikes',
    'follower_jumps',
    'following_churn',
    'likes_comments_ratio',
    'likes_per_view',
    'growth_vs_engagement',
    'purge_drop',
    'comments_per_view',
  ],
  minLogit: 1,
  cap: 0.4,
  band: 0.05,
} as const;

/** Which side of the peer median is suspicious. */
export type Side = 'low' | 'high' | 'both';

/** A signal scored as a robust z-score against peers. */
export interface PeerSignal {
  code: string;
  label: string;
  /** The metric's name in authenticity_peer_stats. */
  metric: string;
  /** The suspicious side(s) of the deviation: the model has terms on these only. */
  side: Side;
  /** Smallest MAD used, in the metric's units: keeps near-constant metrics from flagging noise. */
  madFloor: number;
  /** Which peer group the metric is compared within. */
  peers: 'size' | 'platform' | 'country' | 'country_language';
  /** The metric is compared on a log scale (ratios, rates); values are shown back on their own scale. */
  log: boolean;
  /** The z-score knots of its model terms, when not the usual (1, 3, 6) (model-spec.ts). */
  knots?: readonly number[];
}

/** |z| below `warn` passes; severity rises linearly from `warn` to `full`; `fail` from `fail`. */
export const Z = { warn: 2, fail: 3, full: 5 } as const;

/** The peer-relative signals; the feature column of each is its `metric`. */
export const PEER_SIGNALS: readonly PeerSignal[] = [
  {
    code: 'engagement_rate',
    label: 'Engagement rate vs peers (same platform and follower band)',
    metric: 'engagement_rate',
    side: 'both',
    madFloor: 0.05,
    peers: 'size',
    log: true,
  },
  {
    code: 'likes_comments_ratio',
    label: 'Likes per comment vs peers',
    metric: 'likes_per_comment',
    side: 'both',
    madFloor: 0.05,
    peers: 'size',
    log: true,
  },
  {
    code: 'following_ratio',
    label: 'Accounts followed per follower vs peers',
    metric: 'following_ratio',
    side: 'high',
    madFloor: 0.05,
    peers: 'size',
    log: true,
  },
  {
    code: 'following_growth',
    label: 'Growth of accounts followed beyond the growth of followers, over the history',
    metric: 'following_growth_pct',
    side: 'high',
    madFloor: 2,
    peers: 'platform',
    log: false,
  },
  {
    code: 'audience_quality',
    label: 'Suspicious and mass-follower share of the audience vs peers',
    metric: 'fake_audience_pct',
    side: 'high',
    madFloor: 1,
    peers: 'size',
    log: false,
  },
  {
    code: 'audience_mass_followers',
    label: 'Mass-follower share of the audience vs peers (same platform and follower band)',
    metric: 'mass_followers_pct',
    side: 'high',
    madFloor: 1,
    peers: 'size',
    log: false,
  },
  {
    code: 'audience_suspicious',
    label: 'Suspicious-account share of the audience vs peers (same platform and follower band)',
    metric: 'suspicious_pct',
    side: 'high',
    madFloor: 1,
    peers: 'size',
    log: false,
  },
  {
    code: 'audience_influencers',
    label: 'Influencer share of the audience vs peers (engagement pods)',
    metric: 'influencers_pct',
    side: 'high',
    madFloor: 0.5,
    peers: 'size',
    log: false,
  },
  {
    code: 'audience_geography',
    label: "Audience share in the creator's own country vs peers from that country",
    metric: 'own_country_pct',
    side: 'low',
    madFloor: 1,
    peers: 'country',
    log: false,
  },
  {
    code: 'audience_language',
    label: "Audience share speaking the creator's language vs peers",
    metric: 'own_language_pct',
    side: 'low',
    madFloor: 1,
    peers: 'country_language',
    log: false,
  },
  {
    code: 'follower_growth',
    label: 'Steady follower growth (jumps excluded) vs peers',
    metric: 'growth_log_yr',
    side: 'high',
    madFloor: 0.05,
    peers: 'size',
    log: false,
  },
  {
    code: 'growth_vs_engagement',
    label: 'Recent follower growth that likes did not follow, vs peers',
    metric: 'growth_vs_engagement',
    side: 'high',
    madFloor: 0.03,
    peers: 'platform',
    log: false,
  },
  {
    code: 'likes_per_view',
    label: 'Likes per view of the typical post vs peers (engagement no viewers brought)',
    metric: 'likes_per_view',
    side: 'high',
    madFloor: 0.05,
    peers: 'size',
    log: true,
  },
  {
    code: 'following_churn',
    label: 'Accounts followed that went up and down again (follow/unfollow sprees), per year',
    metric: 'following_churn_pct',
    side: 'high',
    madFloor: 5,
    peers: 'platform',
    log: false,
  },
  {
    code: 'audience_foreign_block',
    label: 'Audience share in the second-largest foreign country vs peers from that country (a block from abroad)',
    metric: 'foreign_second_pct',
    side: 'high',
    madFloor: 1,
    peers: 'country',
    log: false,
  },
  {
    code: 'purge_drop',
    label: 'Followers lost on the days the platform purged bots vs peers on that platform (bought followers are bots)',
    metric: 'purge_drop_pct',
    side: 'high',
    madFloor: 0.05,
    peers: 'platform',
    log: false,
    knots: [2, 5, 10],
  },
  {
    code: 'comments_per_view',
    label: 'Comments per view of the typical post vs peers (comments no viewers brought: pods)',
    metric: 'comments_per_view',
    side: 'high',
    madFloor: 0.05,
    peers: 'size',
    log: true,
    // comments per view is likes per view × comments per like: two traces of a pod read as one; from 2 SDs, not 1,
    // as a product of two noisy ratios spreads wider than either (docs/authenticity.md, variants tried for auth-8.0)
    knots: [2, 4, 8],
  },
];

/** Signal status from severity 0–1 (a z-signal's severity reaches 1/3 exactly at |z| = Z.fail). */
export function statusOf(severity: number | null): 'pass' | 'warn' | 'fail' {
  if (severity === null) return 'warn';
  if (severity <= 0) return 'pass';
  return severity < (Z.fail - Z.warn) / (Z.full - Z.warn) ? 'warn' : 'fail';
}

/** The verdict for a score (docs/authenticity.md thresholds). */
export function verdictOf(score: number): 'authentic' | 'questionable' | 'suspicious' {
  if (score >= VERDICT.authentic) return 'authentic';
  return score >= VERDICT.questionable ? 'questionable' : 'suspicious';
}
