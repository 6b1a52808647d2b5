import { sqlTimestamp } from '../sql.js';
import { wrap, type Queryable, type Store } from '../store.js';
import { fillSketchSlots } from '../audience-overlap/sketch-slots.js';
import { recomputeCreatorMetrics } from '../derive/creator-metrics.js';
import { refitPrices } from '../derive/pricing.js';
import { seedCampaigns } from './demo-campaigns.js';
import { seedAudience } from './demo-audience.js';
import { languageWordsSql, nicheVocabularySql } from './demo-captions.js';
import { seedContacts } from './demo-contacts.js';
import { seedFollowerSamples } from './demo-followers.js';
import { generatePosts } from './demo-posts.js';
import { plantPersonas } from './demo-personas.js';
import { assertSeedFits, discardInterruptedSeed, discardSeed, markSeedDone, markSeedRunning } from './seed-state.js';
import { COUNTRIES, FIRST_NAMES, LAST_NAMES, NICHES, NICHE_WORDS, PLATFORM_PROFILE } from './reference-data.js';

export interface SeedOptions {
  creators: number;
  seed: number;
  /** The day the data runs up to (UTC, `YYYY-MM-DD`); history covers the 365 days ending here. */
  asOf: string;
  /**
   * When the seed starts (default: now). No timestamp lands after it: a profile
   * stamped later than the real updates that follow would make them look stale.
   */
  startedAt?: Date;
  /** The account the demo campaigns belong to. */
  demoAccountId: string;
  /**
   * Multiplies the size of follower-growth spikes (bought and viral), so the
   * authenticity evaluation can test fraud patterns other than the ones it was
   * tuned on. Default 1: the standard dataset.
   */
  spikeScale?: number;
  /**
   * `hard`: the held-out evaluation setting — subtler fraud (effects × 0.6),
   * noisier histories and engagement, weaker viral posts, ~3 % of history
   * days missing, 3 % of creators with one day's count read wrong, and fewer,
   * gentler bot purges. Used only to evaluate models trained on the standard world.
   */
  variant?: 'standard' | 'hard';
  /**
   * Overrides the variant's world parameters (WorldParams): the authenticity
   * training draws many worlds with widely randomised settings.
   */
  world?: Partial<WorldParams>;
  onProgress?: (step: string, done: number, total: number) => void;
}

export interface SeedResult {
  creators: number;
  historyRows: number;
  posts: number;
  audienceRows: number;
  campaigns: number;
  seconds: number;
}

/**
 * How a generated world behaves, for the authenticity model's training across
 * many worlds (tools/demo-worlds.ts). The standard demo world has STANDARD_WORLD;
 * the held-out setting HARD_WORLD.
 */
export interface WorldParams {
  /** How far fraud moves its signals (1 = standard). */
  strength: number;
  /** Daily history and engagement jitter (1 = standard). */
  noise: number;
  /** Share of history days missing. */
  gapRate: number;
  /** A viral post's reach against the usual. */
  viralBoost: number;
  /** Share of creators with one day's count read wrong. */
  glitchRate: number;
  /**
   * Share of creators that are legitimate with the oddities below, carved out of
   * the ordinary ones: `global_audience` (audience spread over many countries),
   * `mass_audience` (a raised mass-follower share), `steady_following` (a high
   * following ratio that does not move), `multi_oddity` (all three, often with
   * viral jumps each explained by a post), `diaspora_audience` (a large block
   * of the audience in one other country that speaks the creator's language).
   */
  oddityRate: number;
  /** Share of follow-for-follow fraud (follow sprees undone in bulk), carved out of the ordinary creators. */
  f4fRate: number;
  /** Spread of every creator's audience mix around the usual (1 = standard). */
  spread: number;
  /** Days of history held at most (365 = all). */
  historyDays: number;
  /** Extra share of creators of any label without audience data. */
  noAudienceRate: number;
  /**
   * Bot purges per platform in the year, on average (0–4 each, drawn per platform
   * around this): days a platform removes fake accounts in bulk (platform_purges).
   */
  purges: number;
  /**
   * How hard the purges bite (1 = standard): each removes 5–35 % × this of the bots
   * it can detect. Every account has a few bots; bought followers are mostly bots.
   */
  purgeStrength: number;
}

export const STANDARD_WORLD: WorldParams = {
  strength: 1,
  noise: 1,
  gapRate: 0,
  viralBoost: 10,
  glitchRate: 0,
  oddityRate: 0,
  f4fRate: 0,
  spread: 1,
  historyDays: 365,
  noAudienceRate: 0,
  purges: 2.5,
  purgeStrength: 1,
};

export const HARD_WORLD: WorldParams = {
  ...STANDARD_WORLD,
  strength: 0.6,
  noise: 2.5,
  gapRate: 0.03,
  viralBoost: 5,
  glitchRate: 0.03,
  purges: 1.5,
  purgeStrength: 0.5,
};

/** Days of daily follower history kept per creator. */
export const HISTORY_DAYS = 365;

/** The store already holds creators; seeding is only for an empty store. */
export class StoreNotEmptyError extends Error {
  override name = 'StoreNotEmptyError';
}

/**
 * Fills an empty store with a deterministic demo dataset, set-based in DuckDB SQL.
 * Randomness is `hash(row key, salt, seed)`, so the same seed and `asOf` give the
 * same data whatever the thread count.
 *
 * Each step commits on its own: one transaction around 365M history rows runs
 * at half the speed (DuckDB reads and writes its transaction-local storage more
 * slowly than committed row groups). All-or-nothing comes from `seed_state`
 * instead: it says `running` until the last step, a failure discards everything
 * seeded (the tables are re-created empty), and a seed killed part-way is
 * discarded by the next seed or service start (`seedStatus` → `interrupted`).
 */
export async function seedDemoData(store: Store, options: SeedOptions): Promise<SeedResult> {
  const started = performance.now();
  // Store.open has done this already; here for a seed left unfinished since (one whose discard failed)
  await discardInterruptedSeed(store);
  const existing = await store.one<{ n: number }>('SELECT count(*) AS n FROM creators');
  if ((existing?.n ?? 0) > 0) throw new StoreNotEmptyError('the store already has creators; seed needs an empty store');
  assertSeedFits(store.path, options.creators);
  const steps = [
    'reference data',
    'creators',
    'follower history',
    'posts',
    'audience',
    'derived metrics',
    'campaigns',
    'price estimates',
  ];
  const progress = (i: number): void => options.onProgress?.(steps[i] ?? '', i, steps.length);
  await markSeedRunning(store, options.creators, options.seed);
  try {
    // one connection throughout: the generation parameters are its temp tables and macros
    await store.withConnection(async (connection) => {
      const c = wrap(connection);
      progress(0);
      await defineHelpers(c, options);
      progress(1);
      await generatePurges(c);
      await generateCreators(c);
      progress(2);
      await generateHistory(c);
      progress(3);
      await generatePosts(c);
      await seedContacts(c);
      progress(4);
      await seedAudience(c);
      await seedFollowerSamples(c, options.startedAt ?? new Date());
      await plantPersonas(c);
      progress(5);
      await recomputeCreatorMetrics(c, 'all');
      progress(6);
      // after the derived metrics: the demo world's prices read the engagement rates
      await seedCampaigns(c, options.demoAccountId);
      progress(7);
      await refitPrices(c);
      await c.run('DROP TABLE gen');
    });
    await markSeedDone(store);
  } catch (error) {
    // When DuckDB has given up on this instance (a write failed on a full disk), this fails too;
    // the seed stays marked running and the next open of the store discards it (Store.open).
    await discardSeed(store).catch(() => undefined);
    throw error;
  }
  options.onProgress?.('done', steps.length, steps.length);
  await store.run('CHECKPOINT');
  // about 1 s for the default demo's ~1,000 sketches against ~2 min of seed (docs/audience-overlap.md);
  // the slots are a copy, so a fill that fails leaves the requests to write them as they read
  await fillSketchSlots(store).catch(() => 0);
  return { ...(await countRows(store)), seconds: (performance.now() - started) / 1000 };
}

async function countRows(store: Store): Promise<Omit<SeedResult, 'seconds'>> {
  const row = await store.one<Omit<SeedResult, 'seconds'>>(`SELECT
    (SELECT count(*) FROM creators) AS creators, (SELECT count(*) FROM follower_history) AS "historyRows",
    (SELECT count(*) FROM posts) AS posts, (SELECT count(*) FROM audience) AS "audienceRows",
    (SELECT count(*) FROM campaigns) AS campaigns`);
  if (!row) throw new Error('count failed');
  return row;
}

/** Lookup tables (weighted picks as 1,000-slot arrays) and the hash-based random macros. */
async function defineHelpers(c: Queryable, o: SeedOptions): Promise<void> {
  await c.run('SET VARIABLE seed = $1', [o.seed]);
  await c.run('SET VARIABLE n_creators = $1', [o.creators]);
  await c.run('SET VARIABLE as_of = $1::DATE', [o.asOf]);
  await c.run('SET VARIABLE started_at = $1::TIMESTAMP', [sqlTimestamp((o.startedAt ?? new Date()).getTime())]);
  await c.run('SET VARIABLE spike_scale = $1::DOUBLE', [o.spikeScale ?? 1]);
  const w: WorldParams = { ...(o.variant === 'hard' ? HARD_WORLD : STANDARD_WORLD), ...o.world };
  // strength: how far fraud moves its signals; noise: history and engagement jitter; gap_rate: missing history days
  await c.run('SET VARIABLE strength = $1::DOUBLE', [w.strength]);
  await c.run('SET VARIABLE noise = $1::DOUBLE', [w.noise]);
  await c.run('SET VARIABLE gap_rate = $1::DOUBLE', [w.gapRate]);
  await c.run('SET VARIABLE viral_boost = $1::DOUBLE', [w.viralBoost]);
  // glitch_rate: creators with one day whose count was read wrong (5–30 % too high, right again the next day)
  await c.run('SET VARIABLE glitch_rate = $1::DOUBLE', [w.glitchRate]);
  await c.run('SET VARIABLE odd_rate = $1::DOUBLE', [w.oddityRate]);
  await c.run('SET VARIABLE f4f_rate = $1::DOUBLE', [w.f4fRate]);
  await c.run('SET VARIABLE spread = $1::DOUBLE', [w.spread]);
  await c.run('SET VARIABLE hist_days = $1::INTEGER', [Math.round(Math.min(365, Math.max(14, w.historyDays)))]);
  await c.run('SET VARIABLE noaud_rate = $1::DOUBLE', [w.noAudienceRate]);
  await c.run('SET VARIABLE purges = $1::DOUBLE', [w.purges]);
  await c.run('SET VARIABLE purge_strength = $1::DOUBLE', [w.purgeStrength]);
  await c.run(`CREATE OR REPLACE TEMP MACRO rnd(k, salt) AS
    ((hash(k, salt, getvariable('seed')) % 1000000007)::DOUBLE + 0.5) / 1000000007.0`);
  await c.run(`CREATE OR REPLACE TEMP MACRO nrm(k, salt) AS
    sqrt(-2 * ln(rnd(k, salt || '.a'))) * cos(2 * pi() * rnd(k, salt || '.b'))`);
  await c.run(`CREATE OR REPLACE TEMP MACRO not_after_start(ts) AS least(ts, getvariable('started_at'))`);
  await c.run(`CREATE OR REPLACE TEMP MACRO pick(arr, u) AS arr[1 + least(floor(u * len(arr))::BIGINT, len(arr) - 1)]`);
  await c.run(
    `CREATE OR REPLACE TEMP TABLE lut AS SELECT
      $1::VARCHAR[] AS platforms, $2::VARCHAR[] AS countries, $3::VARCHAR[] AS niches,
      $4::VARCHAR[] AS first_names, $5::VARCHAR[] AS last_names`,
    [
      weightedSlots(PLATFORM_PROFILE.map((p) => [p.platform, p.weight])),
      weightedSlots(COUNTRIES.map((x) => [x.code, x.weight])),
      [...NICHES],
      [...FIRST_NAMES],
      [...LAST_NAMES],
    ],
  );
  await c.run(
    `CREATE OR REPLACE TEMP TABLE ref_platforms AS SELECT unnest($1::VARCHAR[]) AS platform,
      unnest($2::DOUBLE[]) AS base_er, unnest($3::DOUBLE[]) AS view_rate`,
    [
      PLATFORM_PROFILE.map((p) => p.platform),
      PLATFORM_PROFILE.map((p) => p.baseEr),
      PLATFORM_PROFILE.map((p) => p.viewRate),
    ],
  );
  await c.run(
    `CREATE OR REPLACE TEMP TABLE ref_countries AS SELECT unnest($1::VARCHAR[]) AS code,
      unnest($2::VARCHAR[]) AS language, unnest($3::VARCHAR[]) AS city1, unnest($4::VARCHAR[]) AS city2,
      unnest($5::VARCHAR[]) AS city3`,
    [
      COUNTRIES.map((x) => x.code),
      COUNTRIES.map((x) => x.language),
      COUNTRIES.map((x) => x.cities[0]),
      COUNTRIES.map((x) => x.cities[1]),
      COUNTRIES.map((x) => x.cities[2]),
    ],
  );
  await c.run(`CREATE OR REPLACE TEMP TABLE ref_niche_vocabulary AS ${nicheVocabularySql()}`);
  await c.run(`CREATE OR REPLACE TEMP TABLE ref_caption_words AS ${languageWordsSql()}`);
  await c.run(
    `CREATE OR REPLACE TEMP TABLE ref_niche_words AS SELECT unnest($1::VARCHAR[]) AS niche, unnest($2::VARCHAR[]) AS word`,
    [Object.keys(NICHE_WORDS), Object.values(NICHE_WORDS)],
  );
}

/** Spreads weighted values over 1,000 slots so a uniform draw picks them in proportion. */
export function weightedSlots(entries: ReadonlyArray<readonly [string, number]>): string[] {
  const total = entries.reduce((s, [, w]) => s + w, 0);
  const slots: string[] = [];
  let acc = 0;
  for (const [value, weight] of entries) {
    acc += weight;
    while (slots.length < Math.round((acc / total) * 1000)) slots.push(value);
  }
  return slots;
}

/**
 * Ground truth: each creator's `label` (authentic or a fraud family) and its
 * `pattern`, the case the generator made. Fraud (12 %): blatant
 * `bought_spike`, `engagement_pod`, `mass_followers`, and subtle `small_spikes`
 * (several small bought jumps), `slow_growth` (steady growth no engagement
 * follows), `moderate_mass` (a moderately raised mass-follower share),
 * `audience_mismatch` (an audience whose country and language do not fit).
 * Legitimate but unusual (12 %): `viral_jumps` (several jumps, each after a
 * viral post), `follow_back`, `small_community` (few followers, very high
 * engagement), `no_audience` (no audience data at all), `short_history` (a few
 * weeks of history). Worlds drawn for training (WorldParams) add legitimate
 * oddities (`global_audience`, `mass_audience`, `steady_following`,
 * `multi_oddity`, `diaspora_audience`) and `follow_for_follow` fraud at their own rates. The rest are
 * `ordinary` (3 % of them with one viral jump). A tenth of frauds also come
 * without audience data.
 */
const PATTERNS_SQL = `CASE
    WHEN u_label < 0.030 THEN ['bought_followers', 'bought_spike'] WHEN u_label < 0.050 THEN ['engagement_pod', 'engagement_pod']
    WHEN u_label < 0.065 THEN ['mass_followers', 'mass_followers'] WHEN u_label < 0.080 THEN ['bought_followers', 'small_spikes']
    WHEN u_label < 0.095 THEN ['bought_followers', 'slow_growth'] WHEN u_label < 0.110 THEN ['mass_followers', 'moderate_mass']
    WHEN u_label < 0.120 THEN ['bought_followers', 'audience_mismatch']
    WHEN u_label < 0.150 THEN ['authentic', 'viral_jumps'] WHEN u_label < 0.170 THEN ['authentic', 'follow_back']
    WHEN u_label < 0.190 THEN ['authentic', 'small_community'] WHEN u_label < 0.220 THEN ['authentic', 'no_audience']
    WHEN u_label < 0.240 THEN ['authentic', 'short_history']
    WHEN u_label < 0.240 + getvariable('odd_rate')
      THEN ['authentic', pick(['global_audience', 'mass_audience', 'steady_following', 'multi_oddity', 'diaspora_audience'], rnd(creator_id, 'oddity'))]
    WHEN u_label < 0.240 + getvariable('odd_rate') + getvariable('f4f_rate') THEN ['follow_for_follow', 'follow_for_follow']
    ELSE ['authentic', 'ordinary'] END`;

/** Slots for a platform's bot purges in the year (at most four). */
const PURGE_SLOTS = [1, 2, 3, 4] as const;

/**
 * Bot purges: per platform, up to four days in the year (WorldParams.purges on
 * average) on which it removes a share of the fake accounts it can detect
 * (5–35 % × purgeStrength each). `purge_slots` holds each platform's days (999
 * when the slot is empty) and bites; `platform_purges` the days as data.
 */
async function generatePurges(c: Queryable): Promise<void> {
  const slot = (k: number): string =>
    `CASE WHEN ${k} <= n THEN 10 + floor(rnd(platform, 'purge_day${k}') * 350)::INTEGER ELSE 999 END AS pd${k},
      CASE WHEN ${k} <= n THEN least(0.9, (0.05 + 0.3 * rnd(platform, 'purge_bite${k}')) * getvariable('purge_strength'))
        ELSE 0 END AS pi${k}`;
  await c.run(`CREATE OR REPLACE TEMP TABLE purge_slots AS
    SELECT platform, ${PURGE_SLOTS.map(slot).join(', ')}
    FROM (SELECT platform, least(4, greatest(0, round(getvariable('purges') * (0.6 + 0.8 * rnd(platform, 'purge_n')))))::INTEGER AS n
      FROM ref_platforms)`);
  await c.run(`INSERT OR IGNORE INTO platform_purges (platform, purge_date)
    SELECT platform, getvariable('as_of')::DATE - 364 + d
    FROM (SELECT platform, unnest([${PURGE_SLOTS.map((k) => `pd${k}`).join(', ')}]) AS d FROM purge_slots) WHERE d < 365`);
}

/**
 * Each creator's bots as a share of its followers, how many of them a purge can
 * detect (cheap bots all, better ones few), and whether its seller refills what
 * a purge took (over `refill_days`). Bought followers are mostly bots; every
 * account has a few, a giveaway audience (`mass_audience`, `multi_oddity`) more.
 */
const BOTS_SQL = `CASE
        WHEN l.pattern = 'bought_spike' THEN 0.2 + 0.35 * rnd(l.creator_id, 'spike_size')
        WHEN l.pattern = 'small_spikes' THEN 0.0325 * l.n_small * l.s
        WHEN l.pattern = 'slow_growth' THEN 1 - exp(-l.extra_growth)
        WHEN l.pattern = 'moderate_mass' THEN (0.08 + 0.16 * rnd(l.creator_id, 'bots')) * l.s
        WHEN l.pattern = 'audience_mismatch' THEN (0.1 + 0.25 * rnd(l.creator_id, 'bots')) * l.s
        WHEN l.pattern = 'mass_followers' THEN 0.3 + 0.2 * rnd(l.creator_id, 'bots')
        WHEN l.label <> 'authentic' THEN 0.01 + 0.03 * rnd(l.creator_id, 'bots')
        WHEN l.o_mass THEN 0.01 + 0.04 * rnd(l.creator_id, 'bots')
        ELSE 0.003 + 0.012 * rnd(l.creator_id, 'bots') END AS bot_share,
      CASE WHEN l.label <> 'authentic' THEN 0.15 + 0.85 * rnd(l.creator_id, 'bot_detect')
        ELSE 0.3 + 0.7 * rnd(l.creator_id, 'bot_detect') END AS bot_detect,
      l.label IN ('bought_followers', 'mass_followers') AND rnd(l.creator_id, 'refill') < 0.4 AS refill,
      3 + floor(10 * rnd(l.creator_id, 'refill_days'))::INTEGER AS refill_days`;

/** Day index (0 = first of the 365) of the k-th spike of a creator, from its pattern. */
function spikeDaySql(k: number): string {
  const viral = `364 - floor(3.75 * viral_js[${k}] + 0.75)::INTEGER`;
  return `CASE WHEN pattern = 'bought_spike' AND ${k} = 1 THEN hist_start + 3 + floor(rnd(creator_id, 'spike_day') * (361 - hist_start))::INTEGER
    WHEN pattern = 'small_spikes' AND ${k} <= n_small THEN hist_start + 3 + floor(rnd(creator_id, 'spike_day${k}') * (361 - hist_start))::INTEGER
    WHEN len(viral_js) >= ${k} THEN ${viral} END`;
}

/** Size of the k-th spike as a share of the final followers. */
function spikeFracSql(k: number): string {
  return `getvariable('spike_scale') * CASE
    WHEN pattern = 'bought_spike' AND ${k} = 1 THEN 0.2 + 0.35 * rnd(creator_id, 'spike_size')
    WHEN pattern = 'small_spikes' AND ${k} <= n_small THEN (0.015 + 0.035 * rnd(creator_id, 'spike_size${k}')) * getvariable('strength')
    WHEN pattern = 'viral_jumps' AND len(viral_js) >= ${k} THEN 0.04 + 0.12 * rnd(creator_id, 'spike_size${k}')
    WHEN len(viral_js) >= ${k} THEN 0.1 + 0.2 * rnd(creator_id, 'spike_size') ELSE 0 END`;
}

/**
 * One row per creator with its hidden generation parameters (`gen`), then the
 * public `creators` rows from it, and the labels (see PATTERNS_SQL).
 */
async function generateCreators(c: Queryable): Promise<void> {
  // OR REPLACE: a failed seed may leave it on this pooled connection
  await c.run(`CREATE OR REPLACE TEMP TABLE gen AS
    WITH base AS (
      SELECT i AS creator_id,
        pick(lut.platforms, rnd(i, 'platform')) AS platform,
        pick(lut.countries, rnd(i, 'country')) AS country,
        pick(lut.niches, rnd(i, 'niche')) AS niche,
        pick(lut.first_names, rnd(i, 'first')) AS first_name,
        pick(lut.last_names, rnd(i, 'last')) AS last_name,
        rnd(i, 'label') AS u_label,
        least(200000000, greatest(1000, round(exp(ln(20000) + 1.85 * nrm(i, 'followers')))))::BIGINT AS followers0
      FROM range(1, getvariable('n_creators') + 1) t(i), lut
    ), labelled AS (
      SELECT * EXCLUDE (lp, followers0), lp[1] AS label, lp[2] AS pattern,
        -- small communities: few followers; every other creator keeps its draw
        CASE WHEN lp[2] = 'small_community' THEN 1000 + floor(7000 * rnd(creator_id, 'small'))::BIGINT ELSE followers0 END AS followers,
        lp[2] = 'ordinary' AND rnd(creator_id, 'viral') < 0.03 AS viral,
        lp[2] <> 'no_audience' AND NOT (lp[1] <> 'authentic' AND rnd(creator_id, 'noaud') < 0.1)
          AND NOT rnd(creator_id, 'noaud_world') < getvariable('noaud_rate') AS has_audience,
        greatest(CASE WHEN lp[2] = 'short_history' THEN 364 - 13 - floor(29 * rnd(creator_id, 'short'))::INTEGER ELSE 0 END,
          ${HISTORY_DAYS} - getvariable('hist_days')) AS hist_start,
        CASE WHEN lp[2] = 'slow_growth' THEN (0.3 + 0.5 * rnd(creator_id, 'extra')) * getvariable('strength')
          -- follow-for-follow: the follow-backs its sprees earn add up to steady growth
          WHEN lp[2] = 'follow_for_follow' THEN (0.2 + 0.4 * rnd(creator_id, 'extra')) * getvariable('strength') ELSE 0 END AS extra_growth,
        -- the legitimate oddities (WorldParams.oddityRate): a multi_oddity creator has all three
        lp[2] IN ('global_audience', 'multi_oddity') AS o_global, lp[2] IN ('mass_audience', 'multi_oddity') AS o_mass,
        lp[2] IN ('steady_following', 'multi_oddity') AS o_follow, lp[2] = 'diaspora_audience' AS o_diaspora,
        2 + floor(rnd(creator_id, 'viral_post') * 18)::INTEGER AS j1
      FROM (SELECT *, ${PATTERNS_SQL} AS lp FROM base)
    ), shaped AS (
      SELECT *,
        CASE WHEN pattern = 'viral_jumps' OR (pattern = 'multi_oddity' AND rnd(creator_id, 'multi_viral') < 0.6) THEN
               [2 + floor(rnd(creator_id, 'vj1') * 5)::INTEGER, 7 + floor(rnd(creator_id, 'vj2') * 5)::INTEGER]
               || CASE WHEN rnd(creator_id, 'vj3') < 0.5 THEN [13 + floor(rnd(creator_id, 'vj3b') * 8)::INTEGER] ELSE [] END
             WHEN viral THEN [j1] ELSE []::INTEGER[] END AS viral_js,
        3 + floor(rnd(creator_id, 'n_small') * 2)::INTEGER AS n_small,
        CASE WHEN rnd(creator_id, 'glitch') < getvariable('glitch_rate')
          THEN hist_start + 1 + floor(rnd(creator_id, 'glitch_day') * (362 - hist_start))::INTEGER END AS glitch_day,
        0.05 + 0.25 * rnd(creator_id, 'glitch_size') AS glitch_size,
        getvariable('strength') AS s
      FROM labelled
    )
    SELECT l.*, rc.language AS country_language, rc.city1, rc.city2, rc.city3, rp.base_er, rp.view_rate, w.word,
      -- engagement: falls with size, differs by platform; bought followers dilute it, pods inflate it
      least(30, greatest(0.05, rp.base_er * pow(l.followers / 10000.0, -0.18)
        * exp(0.35 * sqrt(getvariable('noise')) * nrm(l.creator_id, 'er')) * CASE l.pattern
          WHEN 'bought_spike' THEN exp(-0.9 * s) WHEN 'engagement_pod' THEN exp(0.88 * s) WHEN 'mass_followers' THEN exp(-0.36 * s)
          WHEN 'small_spikes' THEN exp(-0.25 * s) WHEN 'slow_growth' THEN exp(-0.8 * l.extra_growth)
          WHEN 'moderate_mass' THEN exp(-0.2 * s) WHEN 'audience_mismatch' THEN exp(-0.3 * s) WHEN 'follow_for_follow' THEN exp(-0.45 * s)
          WHEN 'small_community' THEN 2.5 + 2 * rnd(l.creator_id, 'community') ELSE 1 END)) AS er,
      -- a small community's fans watch as keenly as they like
      CASE WHEN l.pattern = 'small_community' THEN 2.5 + 2 * rnd(l.creator_id, 'community') ELSE 1 END AS views_boost,
      CASE WHEN l.pattern = 'engagement_pod' THEN 35 * exp(-1.76 * s + 0.3 * nrm(l.creator_id, 'lc'))
           ELSE 35 * exp(0.4 * sqrt(getvariable('noise')) * nrm(l.creator_id, 'lc')) END AS likes_per_comment,
      0.35 * nrm(l.creator_id, 'growth') + 0.2 AS growth,
      CASE WHEN l.pattern IN ('bought_spike', 'small_spikes') THEN 0.3 ELSE 0.05 END AS spike_decay,
      CASE WHEN l.pattern = 'mass_followers' THEN least(7500, greatest(3000, l.followers * (0.4 + 0.8 * rnd(l.creator_id, 'following'))))
           WHEN l.pattern = 'follow_back' THEN l.followers * (0.5 + 0.6 * rnd(l.creator_id, 'following'))
           WHEN l.o_follow THEN l.followers * (0.6 + rnd(l.creator_id, 'following'))
           WHEN l.pattern = 'follow_for_follow' THEN l.followers * (0.7 + 0.8 * rnd(l.creator_id, 'following'))
           ELSE greatest(20, round(80 * exp(0.8 * nrm(l.creator_id, 'following')) * pow(l.followers / 1000.0, 0.12)))
             * CASE WHEN l.pattern = 'moderate_mass' THEN pow(2 + 3 * rnd(l.creator_id, 'following_x'), s) ELSE 1 END
      END::BIGINT AS following,
      -- follow-back creators follow as they are followed: their following grows with their followers, not by churn
      CASE l.pattern WHEN 'mass_followers' THEN 0.5 + 0.5 * rnd(l.creator_id, 'fgrowth') WHEN 'follow_back' THEN greatest(0.05, 0.35 * nrm(l.creator_id, 'growth') + 0.2) * (0.8 + 0.4 * rnd(l.creator_id, 'fgrowth'))
        WHEN 'moderate_mass' THEN 0.05 + 0.25 * s WHEN 'follow_for_follow' THEN 0.3 * rnd(l.creator_id, 'fgrowth')
        ELSE CASE WHEN l.o_follow THEN 0 ELSE 0.02 + 0.2 * rnd(l.creator_id, 'fgrowth') END END AS following_growth,
      -- follow-for-follow follows in sprees and unfollows in bulk: a sawtooth of this height and period (days) on the accounts followed
      CASE WHEN l.pattern = 'follow_for_follow' THEN (0.2 + 0.3 * rnd(l.creator_id, 'churn')) * s ELSE 0 END AS churn_amp,
      10 + floor(25 * rnd(l.creator_id, 'churn_period'))::INTEGER AS churn_period,
      ${BOTS_SQL}
    FROM shaped l
    JOIN ref_countries rc ON rc.code = l.country
    JOIN ref_platforms rp ON rp.platform = l.platform
    JOIN ref_niche_words w ON w.niche = l.niche`);
  await c.run(`CREATE OR REPLACE TEMP TABLE gen AS SELECT *,
      ${spikeDaySql(1)} AS s1, ${spikeDaySql(2)} AS s2, ${spikeDaySql(3)} AS s3, ${spikeDaySql(4)} AS s4,
      ${spikeFracSql(1)} AS b1, ${spikeFracSql(2)} AS b2, ${spikeFracSql(3)} AS b3, ${spikeFracSql(4)} AS b4,
      ${PURGE_SLOTS.map((k) => `ps.pd${k}, bot_share * bot_detect * ps.pi${k} AS pl${k}`).join(', ')}
    FROM gen JOIN purge_slots ps USING (platform) ORDER BY creator_id`);
  await c.run(`INSERT INTO creators (creator_id, platform, handle, display_name, bio, niche, country, city, language,
      followers, following, posts_count, verified, updated_at, profile_as_of)
    WITH named AS (
      SELECT g.*, '@' || g.first_name || g.word || g.creator_id::VARCHAR AS own_handle,
        lag('@' || g.first_name || g.word || g.creator_id::VARCHAR) OVER (ORDER BY g.creator_id) AS prev_handle,
        lag(g.platform) OVER (ORDER BY g.creator_id) AS prev_platform
      FROM gen g
    )
    SELECT creator_id, platform,
      -- every tenth creator shares the previous creator's handle on another platform (same person, two accounts)
      CASE WHEN creator_id % 10 = 0 AND prev_platform IS DISTINCT FROM platform AND prev_handle IS NOT NULL
           THEN prev_handle ELSE own_handle END,
      upper(first_name[1]) || first_name[2:] || ' ' || upper(last_name[1]) || last_name[2:],
      upper(niche[1]) || niche[2:] || ' creator from ' || city1 || ' · ' ||
        pick(['sharing my everyday ', 'honest takes on ', 'daily tips on ', 'all things ', 'obsessed with '], rnd(creator_id, 'bio')) ||
        niche || pick(['', ' ✨', ' | collabs via DM', ' | new posts weekly', ' 🌍'], rnd(creator_id, 'bio2')),
      niche, country,
      pick([city1, city1, city1, city2, city3], rnd(creator_id, 'city')),
      CASE WHEN rnd(creator_id, 'lang') < 0.85 THEN country_language ELSE 'en' END,
      followers, following, 50 + floor(rnd(creator_id, 'posts_count') * 2000)::INTEGER,
      rnd(creator_id, 'verified') < 0.02 + 0.7 / (1 + exp(-2.2 * (log10(followers) - 6.2))),
      not_after_start(getvariable('as_of')::TIMESTAMP + INTERVAL 6 HOUR),
      not_after_start(getvariable('as_of')::TIMESTAMP + INTERVAL 6 HOUR)
    FROM named ORDER BY creator_id`);
  await c.run(`INSERT INTO creator_labels (creator_id, label, pattern) SELECT creator_id, label, pattern FROM gen`);
}

/**
 * Daily points per creator (365, or a few weeks for a short history), ending at
 * `as_of` on the creator's current count. Natural growth is smooth with small
 * daily noise; slow-growth fraud adds steady growth on top; each spike (s1..s4,
 * b1..b4) is a one-day jump that then partly decays (bought ones faster); each
 * bot purge of the platform (pd1..pd4) takes the creator's purged bots (pl1..pl4)
 * off for good, or until the seller refills them.
 * Rows come out in creator order (each `gen` row unnests its days and DuckDB
 * preserves insertion order), so zone maps prune per-creator lookups without a
 * sort of the whole table. INTEGER counts keep 365M rows (1M creators) near 2.5 GB.
 */
async function generateHistory(c: Queryable): Promise<void> {
  const spike = (k: number): string =>
    `CASE WHEN d >= s${k} THEN followers * b${k} * (1 - decay_per_day * least(90, d - s${k})) ELSE 0 END`;
  const left = (k: number): string => `coalesce(g.b${k} * (1 - g.spike_decay * least(1, (364 - g.s${k}) / 90.0)), 0)`;
  // a purge takes its share of the final count off every day from it on (the days before held that much more),
  // unless the seller refills it: then the loss is made good over refill_days
  const purged = (k: number): string =>
    `CASE WHEN d < pd${k} THEN CASE WHEN rf${k} THEN 0 ELSE pl${k} END
      WHEN rf${k} THEN -pl${k} * (1 - least(1, (d - pd${k}) / refill_days)) ELSE 0 END`;
  // Per-creator constants are worked out once in `p`, so the rows of each carry only what varies by day.
  await c.run(`INSERT INTO follower_history
    WITH p AS (
      SELECT g.creator_id, g.followers, g.following::DOUBLE AS following, g.hist_start,
        coalesce(g.s1, 999) AS s1, coalesce(g.s2, 999) AS s2, coalesce(g.s3, 999) AS s3, coalesce(g.s4, 999) AS s4,
        g.b1, g.b2, g.b3, g.b4, g.spike_decay / 90.0 AS decay_per_day, -(g.growth + g.extra_growth) / 365.0 AS growth_per_day,
        g.following_growth / 365.0 AS following_growth_per_day, coalesce(g.glitch_day, -1) AS glitch_day, g.glitch_size,
        g.churn_amp, g.churn_period, g.refill_days::DOUBLE AS refill_days,
        ${PURGE_SLOTS.map((k) => `g.pd${k}, g.pl${k}, g.refill AND g.pd${k} + g.refill_days < 364 AS rf${k}`).join(', ')},
        g.followers * (1 - ${[1, 2, 3, 4].map(left).join(' - ')}) AS f_org,
        0.004 * getvariable('noise') AS noise,
        g.creator_id * 1000 + getvariable('seed') * 7919 AS noise_key, getvariable('as_of')::DATE - 364 AS first_day
      FROM gen g
    ), days AS (
      SELECT p.*, unnest(range(hist_start, ${HISTORY_DAYS}))::INTEGER AS d FROM p
    )
    SELECT creator_id, first_day + d,
      greatest(0, round(
        f_org * exp(growth_per_day * (364 - d))
          * (1 + CASE WHEN d < 364 THEN noise * ((hash(noise_key + d) % 10007) / 10007.0 - 0.5) ELSE 0 END)
        + ${[1, 2, 3, 4].map(spike).join(' + ')}) * (1 + ${PURGE_SLOTS.map(purged).join(' + ')})
        * CASE WHEN d = glitch_day THEN 1 + glitch_size ELSE 1 END)::INTEGER,
      round(following * (1 - following_growth_per_day * (364 - d))
        * (1 + churn_amp * ((d - 364 + 1000 * churn_period) % churn_period) / churn_period)
        -- noisier worlds jitter the accounts followed too (nothing in the standard world)
        * (1 + 0.002 * (getvariable('noise') - 1) * ((hash(noise_key + d, 'following') % 10007) / 10007.0 - 0.5)))::INTEGER
    FROM days
    -- the hard setting drops a few days, as real collectors miss them (never the last, which holds the current count)
    WHERE getvariable('gap_rate') = 0 OR d = 364 OR (hash(noise_key + d, 'gap') % 10007) / 10007.0 >= getvariable('gap_rate')`);
}
