import type { Queryable } from '../../../data/store.js';
import { prng } from '../../../core/prng.js';

/** The day hand-made histories run up to. */
export const AS_OF = '2026-11-21';

/** The days (before AS_OF) on which every platform of the hand-made creators purged bots (platform_purges). */
export const PURGE_DAYS_AGO = [150, 250] as const;

/** A hand-made creator: a smooth 365-day history, regular posts and an audience, each knob overridable. */
export interface HandMade {
  id: number;
  handle: string;
  platform?: string;
  country?: string;
  language?: string;
  followers?: number;
  /** Following at the end of the history, and its growth over the history (percent). */
  following?: number;
  followingGrowthPct?: number;
  /** Engagement rate (percent) and likes per comment of the posts. */
  er?: number;
  likesPerComment?: number;
  historyDays?: number;
  posts?: number;
  /** A one-day follower jump `daysAgo` days before AS_OF of `share` of the final followers; `viral` puts a 10× post on that day. */
  spike?: { daysAgo: number; share: number; viral: boolean };
  /** `count` small one-day jumps (first showing 59, 119, 179… days before AS_OF), each `share` of the final followers, no post behind them. */
  jumps?: { count: number; share: number };
  /** A collection glitch: the count of the day `glitchAgo` days before AS_OF read 20 % too high, right again the next day. */
  glitchAgo?: number;
  /** Daily jitter of the history, as the width of a uniform relative noise (default 0.002: ±0.1 %). */
  jitter?: number;
  quality?: { suspicious: number; mass: number; influencers: number };
  ownCountryPct?: number;
  ownLanguagePct?: number;
  /** Audience share in a neighbouring country (AT), beside the US's (default 0). */
  neighbourPct?: number;
  /** A block of the audience from abroad: this share in two more countries (IN 60 %, ID 40 % of it), as bought audiences come. */
  foreignBlock?: number;
  /** A global audience: this many more countries (FR, IT, ES, NL, PL, SE, BR, JP), 5 % of the audience each. */
  spreadCountries?: number;
  /** Follow/unfollow sprees: the accounts followed climb by `amplitude` over `period` days, then drop back in one. */
  followingSawtooth?: { amplitude: number; period: number };
  /** Views of a post per follower (default 0.25). */
  viewsPerFollower?: number;
  /** Share of the final followers lost on each purge day (PURGE_DAYS_AGO; default 0: no bots to purge). */
  purgeLoss?: number;
}

/** The knobs of each creator with defaults applied, one array per column (bound as lists). */
function columns(cs: readonly HandMade[]): Record<string, string[] | number[]> {
  const col = <T extends string | number>(f: (c: HandMade) => T): T[] => cs.map(f);
  return {
    id: col((c) => c.id),
    handle: col((c) => c.handle),
    platform: col((c) => c.platform ?? 'instagram'),
    country: col((c) => c.country ?? 'DE'),
    language: col((c) => c.language ?? 'de'),
    followers: col((c) => c.followers ?? 20_000),
    following: col((c) => c.following ?? 400),
    fg: col((c) => c.followingGrowthPct ?? 5),
    er: col((c) => c.er ?? 3),
    lpc: col((c) => c.likesPerComment ?? 30),
    days: col((c) => c.historyDays ?? 365),
    posts: col((c) => c.posts ?? 24),
    spike_ago: col((c) => c.spike?.daysAgo ?? 9999),
    spike_share: col((c) => c.spike?.share ?? 0),
    viral: col((c) => (c.spike?.viral ? 1 : 0)),
    glitch_ago: col((c) => c.glitchAgo ?? 9999),
    jumps_n: col((c) => c.jumps?.count ?? 0),
    jump_share: col((c) => c.jumps?.share ?? 0),
    jitter: col((c) => c.jitter ?? 0.002),
    suspicious: col((c) => c.quality?.suspicious ?? 8),
    mass: col((c) => c.quality?.mass ?? 8),
    influencers: col((c) => c.quality?.influencers ?? 4),
    own: col((c) => c.ownCountryPct ?? 50),
    lang: col((c) => c.ownLanguagePct ?? 60),
    neighbour: col((c) => c.neighbourPct ?? 0),
    block: col((c) => c.foreignBlock ?? 0),
    spread_n: col((c) => c.spreadCountries ?? 0),
    saw_amp: col((c) => c.followingSawtooth?.amplitude ?? 0),
    saw_period: col((c) => c.followingSawtooth?.period ?? 30),
    vpf: col((c) => c.viewsPerFollower ?? 0.25),
    purge_loss: col((c) => c.purgeLoss ?? 0),
  };
}

/** Inserts hand-made creators with their history, posts and audience rows, a few set-based statements in all. */
export async function insertHandMade(db: Queryable, cs: readonly HandMade[]): Promise<void> {
  const cols = columns(cs);
  const names = Object.keys(cols);
  // numeric lists bind as DOUBLE[]: counts go back to integers
  const ints = new Set([
    'id',
    'days',
    'posts',
    'spike_ago',
    'viral',
    'followers',
    'following',
    'jumps_n',
    'glitch_ago',
    'saw_period',
    'spread_n',
  ]);
  await db.run(
    `CREATE OR REPLACE TEMP TABLE hm AS SELECT ${names.map((n) => `unnest($${n})${ints.has(n) ? '::INTEGER' : ''} AS ${n}`).join(', ')}`,
    cols,
  );
  await db.run(`CREATE OR REPLACE TEMP TABLE hm2 AS SELECT *, followers * (1 - spike_share) AS base,
      followers * er / 100 * (1 - 1 / (lpc + 1)) AS likes FROM hm`);
  await db.run(
    `INSERT INTO creators (creator_id, platform, handle, niche, country, language, followers, following, posts_count, verified, updated_at)
    SELECT id, platform, handle, 'fitness', country, language, followers, following, 100, false, $as_of::TIMESTAMP FROM hm2`,
    { as_of: AS_OF },
  );
  await db.run(
    `INSERT OR IGNORE INTO platform_purges (platform, purge_date)
      SELECT DISTINCT platform, $as_of::DATE - ago::INTEGER FROM hm2, unnest($days) t(ago)`,
    { as_of: AS_OF, days: [...PURGE_DAYS_AGO] },
  );
  // smooth 10 %/year growth with daily jitter (±0.1 % by default); the spike adds `spike_share` of the followers from its
  // day on, each small jump `jump_share`; each purge takes `purge_loss` off from its day on
  await db.run(
    `INSERT INTO follower_history
    SELECT id, $as_of::DATE - d::INTEGER, round((CASE WHEN d >= spike_ago THEN base ELSE followers END)
        * (1 - jump_share * least(jumps_n, floor(d / 60)))
        * (1 + purge_loss * len(list_filter($days, (ago) -> d > ago)))
        * (1 - 0.1 * d / 365.0) * CASE WHEN d = glitch_ago THEN 1.2 ELSE 1 END * (1 + CASE WHEN d > 0 THEN jitter * ((hash(d, id) % 1000) / 1000.0 - 0.5) ELSE 0 END))::BIGINT,
      round(following / (1 + fg / 100.0 * d / 364.0) * (1 + saw_amp * ((saw_period - d % saw_period) % saw_period) / saw_period))::BIGINT
    FROM (SELECT *, unnest(range(0, days)) AS d FROM hm2)`,
    { as_of: AS_OF, days: [...PURGE_DAYS_AGO] },
  );
  await db.run(
    `INSERT INTO posts (creator_id, post_id, posted_at, type, likes, comments, views, shares, sponsored)
    SELECT id, 'p' || id || '_' || j, $as_of::TIMESTAMP - to_seconds(j * 4 * 86400 + 36000)::INTERVAL, 'post',
      round(likes * (0.9 + 0.2 * (hash(j, id, 'l') % 100) / 100.0))::BIGINT, round(likes / lpc)::BIGINT,
      round(followers * vpf)::BIGINT, 0, false
    FROM (SELECT *, unnest(range(0, posts)) AS j FROM hm2)
    UNION ALL
    -- a viral post (10× reach) an hour before the day its spike shows
    SELECT id, 'viral_' || id, $as_of::TIMESTAMP - to_seconds(spike_ago * 86400 - 3600)::INTERVAL, 'reel',
      round(likes * 10)::BIGINT, round(likes / lpc * 10)::BIGINT, round(followers * 2.5)::BIGINT, 0, false
    FROM hm2 WHERE viral = 1`,
    { as_of: AS_OF },
  );
  await db.run(
    `INSERT INTO audience
    SELECT id, r.dim, r.key, r.pct, $as_of::TIMESTAMP FROM (
      SELECT id, unnest([
        {dim: 'quality', key: 'real', pct: 100 - suspicious - mass - influencers}, {dim: 'quality', key: 'suspicious', pct: suspicious},
        {dim: 'quality', key: 'mass_followers', pct: mass}, {dim: 'quality', key: 'influencers', pct: influencers},
        {dim: 'country', key: country, pct: own}, {dim: 'country', key: 'US', pct: least(20, 100 - own)},
        {dim: 'language', key: language, pct: lang}, {dim: 'language', key: 'xx', pct: least(25, 100 - lang)}]) AS r
      FROM hm2
      UNION ALL
      -- further countries abroad, only where a creator has them
      SELECT id, unnest([{dim: 'country', key: 'AT', pct: neighbour}, {dim: 'country', key: 'IN', pct: 0.6 * block},
        {dim: 'country', key: 'ID', pct: 0.4 * block}]) FROM hm2
      UNION ALL
      SELECT id, unnest(list_transform(['FR', 'IT', 'ES', 'NL', 'PL', 'SE', 'BR', 'JP'][1:spread_n], (k) -> {dim: 'country', key: k, pct: 5.0}))
      FROM hm2) WHERE r.pct > 0`,
    { as_of: AS_OF },
  );
  await db.run('DROP TABLE hm2');
  await db.run('DROP TABLE hm');
}

/** `n` ordinary peers (ids from `firstId`): the same platform, band, country and language, with natural spread. */
export function peers(firstId: number, n: number, seed = 7): HandMade[] {
  const r = prng(seed);
  const spread = (centre: number, rel: number): number => centre * Math.exp(rel * (r() * 2 - 1));
  return Array.from({ length: n }, (_, i) => ({
    id: firstId + i,
    handle: `@peer${i}`,
    followers: Math.round(12_000 + r() * 12_000),
    following: Math.round(spread(400, 0.6)),
    followingGrowthPct: 2 + r() * 6,
    er: spread(3, 0.4),
    likesPerComment: spread(30, 0.4),
    quality: { suspicious: 5 + r() * 7, mass: 5 + r() * 7, influencers: 2 + r() * 4 },
    ownCountryPct: 40 + r() * 20,
    ownLanguagePct: 50 + r() * 20,
    // not from the random stream: the peers' other knobs stay as they were
    neighbourPct: 3 + (i % 6),
  }));
}
