import type { Queryable } from '../store.js';

/** Campaigns generated for the demo account. */
export const DEMO_CAMPAIGNS = 12;
const CREATORS_PER_CAMPAIGN = 8;

/**
 * A dozen campaigns for the demo account, each with mid-size creators and daily
 * per-creator metrics from its start to its end (or `as_of` while it runs).
 */
export async function seedCampaigns(c: Queryable, accountId: string): Promise<void> {
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
  await c.run(`INSERT INTO campaign_creators (campaign_id, creator_id)
    SELECT DISTINCT camp.campaign_id, cr.creator_id
    FROM camp, range(0, ${CREATORS_PER_CAMPAIGN}) r(j),
      LATERAL (SELECT creator_id FROM creators
               WHERE followers BETWEEN 10000 AND 2000000
               ORDER BY hash(creator_id, camp.i, j, getvariable('seed')) LIMIT 1) cr`);
  await c.run(`INSERT INTO campaign_metrics
    SELECT cc.campaign_id, d.date, cc.creator_id, m.impressions, round(m.impressions * 0.7)::BIGINT, round(m.impressions * 0.45)::BIGINT,
      round(m.impressions * m.er)::BIGINT, round(m.impressions * m.er / 30)::BIGINT, round(m.impressions * m.er / 60)::BIGINT,
      round(m.impressions * m.er / 40)::BIGINT, round(m.impressions * 0.008)::BIGINT, round(m.impressions * 0.0006)::BIGINT,
      round(m.impressions * 0.0006 * 48, 2), round(m.impressions / 1000.0 * 9.5, 2)
    FROM campaign_creators cc
    JOIN camp ON camp.campaign_id = cc.campaign_id
    JOIN campaigns cp ON cp.campaign_id = cc.campaign_id AND cp.status <> 'draft'
    JOIN creators cr ON cr.creator_id = cc.creator_id
    CROSS JOIN LATERAL (SELECT unnest(range(cp.starts_on, least(cp.ends_on, getvariable('as_of')) + 1, INTERVAL 1 DAY))::DATE AS date) d
    CROSS JOIN LATERAL (SELECT
        round(cr.followers * 0.03 * exp(0.5 * nrm(hash(cc.campaign_id, cc.creator_id, d.date), 'imp')))::BIGINT AS impressions,
        0.02 + 0.03 * rnd(hash(cc.campaign_id, cc.creator_id), 'er') AS er) m
    ORDER BY cc.campaign_id, d.date, cc.creator_id`);
  await c.run('DROP TABLE camp');
}
