import type { Queryable } from '../../../data/store.js';

/** The day hand-made histories run up to. */
export const AS_OF = '2026-11-21';

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
  quality?: { suspicious: number; mass: number; influencers: number };
  ownCountryPct?: number;
  ownLanguagePct?: number;
}

/** A deterministic PRNG (mulberry32), so populations are the same on every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Inserts one hand-made creator with its history, posts and audience rows. */
export async function insertHandMade(db: Queryable, c: HandMade): Promise<void> {
  const followers = c.followers ?? 20_000;
  const following = c.following ?? 400;
  const days = c.historyDays ?? 365;
  const spike = c.spike ?? { daysAgo: 9999, share: 0, viral: false };
  const base = followers * (1 - spike.share);
  await db.run(`INSERT INTO creators (creator_id, platform, handle, niche, country, language, followers, following, posts_count, verified, updated_at)
    VALUES (?, ?, ?, 'fitness', ?, ?, ?, ?, 100, false, ?::TIMESTAMP)`,
    [c.id, c.platform ?? 'instagram', c.handle, c.country ?? 'DE', c.language ?? 'de', followers, following, AS_OF]);
  // smooth 10 %/year growth with ±0.1 % daily jitter; the spike adds `share` of the followers from its day on
  await db.run(`INSERT INTO follower_history
    SELECT $id, $as_of::DATE - d::INTEGER, round((CASE WHEN d >= $spike_ago THEN $base ELSE $followers END)
        * (1 - 0.1 * d / 365.0) * (1 + CASE WHEN d > 0 THEN 0.002 * ((hash(d, $id) % 1000) / 1000.0 - 0.5) ELSE 0 END))::BIGINT,
      round($following / (1 + $fg / 100.0 * d / 364.0))::BIGINT
    FROM range(0, $days) t(d)`,
    { id: c.id, as_of: AS_OF, spike_ago: spike.daysAgo, base, followers, following, fg: c.followingGrowthPct ?? 5, days });
  const likes = followers * (c.er ?? 3) / 100 * (1 - 1 / ((c.likesPerComment ?? 30) + 1));
  await db.run(`INSERT INTO posts
    SELECT $id, 'p' || $id || '_' || j, $as_of::TIMESTAMP - to_seconds(j * 4 * 86400 + 36000)::INTERVAL, 'image',
      round($likes * (0.9 + 0.2 * (hash(j, $id, 'l') % 100) / 100.0))::BIGINT,
      round($likes / $lpc)::BIGINT, round($followers * 0.25)::BIGINT, 0, false
    FROM range(0, $posts) t(j)`,
    { id: c.id, as_of: AS_OF, likes, lpc: c.likesPerComment ?? 30, followers, posts: c.posts ?? 24 });
  if (spike.viral) {
    await db.run(`INSERT INTO posts VALUES ($id, 'viral_' || $id, $as_of::TIMESTAMP - to_seconds($ago * 86400 - 3600)::INTERVAL,
      'reel', round($likes * 10)::BIGINT, round($likes / $lpc * 10)::BIGINT, round($followers * 2.5)::BIGINT, 0, false)`,
      { id: c.id, as_of: AS_OF, ago: spike.daysAgo, likes, lpc: c.likesPerComment ?? 30, followers });
  }
  const q = c.quality ?? { suspicious: 8, mass: 8, influencers: 4 };
  const own = c.ownCountryPct ?? 50;
  const lang = c.ownLanguagePct ?? 60;
  const rows: Array<[string, string, number]> = [
    ['quality', 'real', 100 - q.suspicious - q.mass - q.influencers], ['quality', 'suspicious', q.suspicious],
    ['quality', 'mass_followers', q.mass], ['quality', 'influencers', q.influencers],
    ['country', c.country ?? 'DE', own], ['country', 'US', Math.min(20, 100 - own)],
    ['language', c.language ?? 'de', lang], ['language', 'xx', Math.min(25, 100 - lang)],
  ];
  await db.run(`INSERT INTO audience SELECT $id, unnest($dims::VARCHAR[]), unnest($keys::VARCHAR[]), unnest($pcts::DOUBLE[]), $as_of::TIMESTAMP`,
    { id: c.id, dims: rows.map((r) => r[0]), keys: rows.map((r) => r[1]), pcts: rows.map((r) => r[2]), as_of: AS_OF });
}

/** `n` ordinary peers (ids from `firstId`): the same platform, band, country and language, with natural spread. */
export function peers(firstId: number, n: number, seed = 7): HandMade[] {
  const r = prng(seed);
  const spread = (centre: number, rel: number): number => centre * Math.exp(rel * (r() * 2 - 1));
  return Array.from({ length: n }, (_, i) => ({
    id: firstId + i, handle: `@peer${i}`,
    followers: Math.round(12_000 + r() * 12_000),
    following: Math.round(spread(400, 0.6)),
    followingGrowthPct: 2 + r() * 6,
    er: spread(3, 0.4),
    likesPerComment: spread(30, 0.4),
    quality: { suspicious: 5 + r() * 7, mass: 5 + r() * 7, influencers: 2 + r() * 4 },
    ownCountryPct: 40 + r() * 20,
    ownLanguagePct: 50 + r() * 20,
  }));
}
