import type { Queryable } from '../store.js';

/** Campaigns generated for the demo account. */
export const DEMO_CAMPAIGNS = 12;
const CREATORS_PER_CAMPAIGN = 8;
/** Past campaigns of other (fictional) accounts: one per this many creators, at least MIN_MARKET_CAMPAIGNS. */
const CREATORS_PER_MARKET_CAMPAIGN = 20;
const MIN_MARKET_CAMPAIGNS = 40;
/** The fictional accounts the market history belongs to (`acct_market_1` …); none is an account of the service. */
const MARKET_ACCOUNTS = 60;

/**
 * The hidden price function the demo world's campaign spend follows (docs/pricing.md):
 * ln(USD per post) = base + followers × ln(followers / 10,000) + engagement × ln(engagement rate % / 3)
 * + the platform's, niche's, country's and post type's effects (0 when not listed)
 * + a per-creator effect (normal, sd `creator_sd`) + per-campaign noise (normal, sd `noise_sd`).
 * Exported so tests can hold the fitted model to it.
 */
export const HIDDEN_PRICE = {
  base: Math.log(180),
  followers: 0.8,
  engagement: 0.45,
  creator_sd: 0.3,
  noise_sd: 0.2,
  platform: { instagram: 0, tiktok: -0.15, youtube: 0.25, x: -0.45, twitch: -0.2 },
  niche: {
    finance: 0.45,
    tech: 0.3,
    business: 0.3,
    beauty: 0.2,
    automotive: 0.2,
    fashion: 0.15,
    travel: 0.1,
    parenting: 0.1,
    gaming: -0.1,
    music: -0.1,
    comedy: -0.15,
    art: -0.2,
    pets: -0.05,
  },
  country: {
    US: 0.35,
    CH: 0.35,
    GB: 0.25,
    DE: 0.2,
    CA: 0.2,
    AU: 0.2,
    NL: 0.15,
    SE: 0.15,
    FR: 0.1,
    JP: 0.1,
    MX: -0.35,
    BR: -0.45,
    TR: -0.4,
    PH: -0.6,
    NG: -0.6,
    VN: -0.6,
    EG: -0.6,
    ID: -0.7,
    IN: -0.8,
    PK: -0.8,
    BD: -0.8,
  },
  post_type: { post: 0, reel: 0.3, short: 0.05, video: 0.55, story: -0.55, live: 0.2 },
} as const;

/** What each platform's creators are paid for (drawn uniformly from the list, so repeats weigh). */
const TYPES_BY_PLATFORM = `CASE c.platform
  WHEN 'instagram' THEN ['post', 'reel', 'reel', 'story', 'post']
  WHEN 'tiktok' THEN ['video', 'video', 'story', 'live']
  WHEN 'youtube' THEN ['video', 'video', 'short', 'live']
  WHEN 'twitch' THEN ['live', 'live', 'video']
  ELSE ['post', 'post', 'video'] END`;

/**
 * The demo account's dozen campaigns, each with mid-size creators and daily
 * per-creator metrics from its start to its end (or `as_of` while it runs); and
 * a market history: completed campaigns of other accounts, each creator on one
 * paid for a few posts of one type at the hidden price (HIDDEN_PRICE), so the
 * price estimates have something to fit. Runs after the derived metrics: the
 * price reads the creators' engagement rates.
 */
export async function seedCampaigns(c: Queryable, accountId: string): Promise<void> {
  await definePriceEffects(c);
  await seedDemoAccountCampaigns(c, accountId);
  await seedMarketHistory(c);
  await c.run(`CREATE OR REPLACE TEMP TABLE fee AS
    SELECT cc.campaign_id, cc.creator_id, cc.posts * exp(${hiddenLogPriceSql()}) AS fee
    FROM campaign_creators cc JOIN creators c USING (creator_id)
    LEFT JOIN px_effect pl ON pl.term = 'platform' AND pl.level = c.platform
    LEFT JOIN px_effect ni ON ni.term = 'niche' AND ni.level = c.niche
    LEFT JOIN px_effect co ON co.term = 'country' AND co.level = c.country
    LEFT JOIN px_effect ty ON ty.term = 'post_type' AND ty.level = cc.post_type`);
  await insertDemoMetrics(c);
  await insertMarketMetrics(c);
  for (const t of ['camp', 'mkt', 'fee', 'px_effect']) await c.run(`DROP TABLE ${t}`);
}

async function definePriceEffects(c: Queryable): Promise<void> {
  const rows = (['platform', 'niche', 'country', 'post_type'] as const).flatMap((term) =>
    Object.entries(HIDDEN_PRICE[term]).map(([level, effect]) => [term, level, effect] as const),
  );
  await c.run(
    `CREATE OR REPLACE TEMP TABLE px_effect AS
      SELECT unnest($1::VARCHAR[]) AS term, unnest($2::VARCHAR[]) AS level, unnest($3::DOUBLE[]) AS effect`,
    [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2])],
  );
}

/** ln(USD per post) of creator `c` on roster row `cc`, with the effect joins pl, ni, co, ty (HIDDEN_PRICE). */
function hiddenLogPriceSql(): string {
  const p = HIDDEN_PRICE;
  return `${p.base} + ${p.followers} * (ln(greatest(c.followers, 100)) - ln(10000))
    + ${p.engagement} * (ln(least(greatest(coalesce(c.engagement_rate, 2.0), 0.05), 50.0)) - ln(3.0))
    + coalesce(pl.effect, 0) + coalesce(ni.effect, 0) + coalesce(co.effect, 0) + coalesce(ty.effect, 0)
    + ${p.creator_sd} * nrm(c.creator_id, 'price') + ${p.noise_sd} * nrm(hash(cc.campaign_id, cc.creator_id), 'price_noise')`;
}

async function seedDemoAccountCampaigns(c: Queryable, accountId: string): Promise<void> {
  await c.run(`CREATE TEMP TABLE camp AS
    SELECT i, 'cmp_' || substr(md5(getvariable('seed')::VARCHAR || '-campaign-' || i::VARCHAR), 1, 16) AS campaign_id,
      pick(['Glow Serum Launch', 'Summer Drop', 'Back to School', 'Holiday Gift Guide', 'Spring Reset', 'App Install Push',
            'Game Night', 'Marathon Ready', 'Kitchen Heroes', 'City Breaks', 'Money Week', 'Pet Parents'], (i - 1) / 12.0) AS name,
      pick(['Lumière', 'Northwind', 'Acme Goods', 'Peak Athletics', 'Byte Labs', 'Greenleaf', 'Atlas Travel', 'Cobalt Bank'],
           rnd(i, 'brand')) AS brand,
      (getvariable('as_of') - (20 + floor(rnd(i, 'start') * 100))::INTEGER)::DATE AS starts_on,
      (30 + floor(rnd(i, 'len') * 45))::INTEGER AS days
    FROM range(1, ${DEMO_CAMPAIGNS} + 1) t(i)`);
  await c.run(
    `INSERT INTO campaigns (campaign_id, account_id, name, brand, status, starts_on, ends_on, currency, budget, updated_at)
    SELECT campaign_id, $1, name, brand,
      CASE WHEN i = 1 THEN 'draft' WHEN i = 2 THEN 'paused'
           WHEN starts_on + days < getvariable('as_of') THEN 'completed' ELSE 'active' END,
      starts_on, (starts_on + days)::DATE, 'USD', 5000 + round(rnd(i, 'budget') * 95000), not_after_start(getvariable('as_of')::TIMESTAMP)
    FROM camp`,
    [accountId],
  );
  await c.run(`INSERT INTO campaign_creators (campaign_id, creator_id, post_type, posts)
    SELECT p.campaign_id, c.creator_id, pick(${TYPES_BY_PLATFORM}, rnd(hash(p.campaign_id, c.creator_id), 'type')),
      1 + floor(rnd(hash(p.campaign_id, c.creator_id), 'posts') * 3)::INTEGER
    FROM (SELECT DISTINCT camp.campaign_id, cr.creator_id
      FROM camp, range(0, ${CREATORS_PER_CAMPAIGN}) r(j),
        LATERAL (SELECT creator_id FROM creators
                 WHERE followers BETWEEN 10000 AND 2000000
                 ORDER BY hash(creator_id, camp.i, j, getvariable('seed')) LIMIT 1) cr) p
    JOIN creators c ON c.creator_id = p.creator_id`);
}

/** The demo account's daily metrics; a creator's fee is spread over its days in proportion to its impressions. */
async function insertDemoMetrics(c: Queryable): Promise<void> {
  await c.run(`INSERT INTO campaign_metrics
    SELECT campaign_id, date, creator_id, impressions, round(impressions * 0.7)::BIGINT, round(impressions * 0.45)::BIGINT,
      round(impressions * er)::BIGINT, round(impressions * er / 30)::BIGINT, round(impressions * er / 60)::BIGINT,
      round(impressions * er / 40)::BIGINT, round(impressions * 0.008)::BIGINT, round(impressions * 0.0006)::BIGINT,
      round(impressions * 0.0006 * 48, 2),
      round(fee * impressions / sum(impressions) OVER (PARTITION BY campaign_id, creator_id), 2)
    FROM (SELECT cc.campaign_id, d.date, cc.creator_id, m.impressions, m.er, f.fee
      FROM campaign_creators cc
      JOIN camp ON camp.campaign_id = cc.campaign_id
      JOIN campaigns cp ON cp.campaign_id = cc.campaign_id AND cp.status <> 'draft'
      JOIN creators cr ON cr.creator_id = cc.creator_id
      JOIN fee f ON f.campaign_id = cc.campaign_id AND f.creator_id = cc.creator_id
      CROSS JOIN LATERAL (SELECT unnest(range(cp.starts_on, least(cp.ends_on, getvariable('as_of')) + 1, INTERVAL 1 DAY))::DATE AS date) d
      CROSS JOIN LATERAL (SELECT
          round(cr.followers * 0.03 * exp(0.5 * nrm(hash(cc.campaign_id, cc.creator_id, d.date), 'imp')))::BIGINT AS impressions,
          0.02 + 0.03 * rnd(hash(cc.campaign_id, cc.creator_id), 'er') AS er) m)
    ORDER BY campaign_id, date, creator_id`);
}

/**
 * Completed campaigns of fictional accounts over the two years before `as_of`,
 * 4–17 creators each drawn from the whole store (a creator may be on several),
 * each paid for 1–3 posts of one type its platform offers.
 */
async function seedMarketHistory(c: Queryable): Promise<void> {
  await c.run(`CREATE TEMP TABLE mkt AS
    SELECT i, 'cmp_' || substr(md5(getvariable('seed')::VARCHAR || '-market-' || i::VARCHAR), 1, 16) AS campaign_id,
      'acct_market_' || (1 + i % ${MARKET_ACCOUNTS})::VARCHAR AS account_id,
      (getvariable('as_of') - (60 + floor(rnd(i, 'mstart') * 670))::INTEGER)::DATE AS starts_on,
      (7 + floor(rnd(i, 'mlen') * 35))::INTEGER AS days,
      4 + floor(rnd(i, 'msize') * 14)::INTEGER AS size
    FROM range(1, greatest(${MIN_MARKET_CAMPAIGNS}, getvariable('n_creators') // ${CREATORS_PER_MARKET_CAMPAIGN}) + 1) t(i)`);
  await c.run(`INSERT INTO campaigns (campaign_id, account_id, name, brand, status, starts_on, ends_on, currency, budget, updated_at)
    SELECT campaign_id, account_id, 'Campaign ' || i::VARCHAR,
      pick(['Lumière', 'Northwind', 'Acme Goods', 'Peak Athletics', 'Byte Labs', 'Greenleaf', 'Atlas Travel', 'Cobalt Bank',
            'Harbor Coffee', 'Nimbus Mobile', 'Orchid Skin', 'Trailhead Gear'], rnd(i, 'mbrand')),
      'completed', starts_on, (starts_on + days)::DATE, 'USD', 2000 + round(rnd(i, 'mbudget') * 98000),
      not_after_start((starts_on + days)::TIMESTAMP)
    FROM mkt`);
  await c.run(`INSERT INTO campaign_creators (campaign_id, creator_id, post_type, posts)
    SELECT p.campaign_id, c.creator_id, pick(${TYPES_BY_PLATFORM}, rnd(hash(p.campaign_id, c.creator_id), 'type')),
      1 + floor(rnd(hash(p.campaign_id, c.creator_id), 'posts') * 3)::INTEGER
    FROM (SELECT DISTINCT mkt.campaign_id,
        1 + (hash(mkt.i, j, 'mpick', getvariable('seed')) % getvariable('n_creators')::UBIGINT)::INTEGER AS creator_id
      FROM mkt, range(0, 17) r(j) WHERE j < mkt.size) p
    JOIN creators c ON c.creator_id = p.creator_id`);
}

/** One metrics row per market creator, on the campaign's last day: its posts' results and the whole fee. */
async function insertMarketMetrics(c: Queryable): Promise<void> {
  await c.run(`INSERT INTO campaign_metrics
    SELECT mkt.campaign_id, (mkt.starts_on + mkt.days)::DATE, cc.creator_id, imp, round(imp * 0.7)::BIGINT, round(imp * 0.45)::BIGINT,
      round(imp * 0.03)::BIGINT, round(imp * 0.001)::BIGINT, round(imp * 0.0005)::BIGINT, round(imp * 0.0008)::BIGINT,
      round(imp * 0.008)::BIGINT, round(imp * 0.0006)::BIGINT, round(imp * 0.0006 * 48, 2), round(f.fee, 2)
    FROM mkt
    JOIN campaign_creators cc ON cc.campaign_id = mkt.campaign_id
    JOIN creators cr ON cr.creator_id = cc.creator_id
    JOIN fee f ON f.campaign_id = cc.campaign_id AND f.creator_id = cc.creator_id
    CROSS JOIN LATERAL (SELECT round(cr.followers * 0.2 * cc.posts
        * exp(0.5 * nrm(hash(cc.campaign_id, cc.creator_id), 'mimp')))::BIGINT AS imp) m
    ORDER BY mkt.campaign_id, cc.creator_id`);
}
