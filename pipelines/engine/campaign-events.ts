import { SUMMED_METRICS } from '../../data/campaigns/campaign-metrics.js';
import { newId } from '../../data/ids.js';
import type { Queryable } from '../../data/store.js';

/** The campaign's summed daily metrics, counts then money, as the API's campaign metrics name them. */
const SUMS = SUMMED_METRICS;

/** Totals of every campaign named by the valid batch rows, as they are before the load. */
export async function snapshotCampaignTotals(tx: Queryable): Promise<void> {
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE touched_campaigns AS SELECT DISTINCT campaign_id FROM stg_typed WHERE __err IS NULL`,
  );
  await tx.run(`CREATE OR REPLACE TEMP TABLE campaign_totals_before AS ${totalsSql()}`);
}

function totalsSql(): string {
  return `SELECT t.campaign_id, ${SUMS.map((m) => `round(coalesce(sum(m.${m}), 0), 2) AS ${m}`).join(', ')}
    FROM touched_campaigns t LEFT JOIN campaign_metrics m USING (campaign_id) GROUP BY t.campaign_id`;
}

/** The campaign totals object of `campaign.metrics_updated`: sums plus the ratios (percent and money per unit). */
function totalsJson(a: string): string {
  const eng = `(${a}.likes + ${a}.comments + ${a}.shares + ${a}.saves)`;
  const ratio = (num: string, den: string, scale = 1): string =>
    `CASE WHEN ${den} > 0 THEN round(${num} * ${scale} / ${den}, 4) END`;
  return `json_object(${SUMS.map((m) => `'${m}', ${a}.${m}`).join(', ')}, 'engagements', ${eng},
    'engagement_rate', ${ratio(eng, `${a}.impressions`, 100)}, 'ctr', ${ratio(`${a}.clicks`, `${a}.impressions`, 100)},
    'cpm', ${ratio(`${a}.spend`, `${a}.impressions`, 1000)}, 'cpc', ${ratio(`${a}.spend`, `${a}.clicks`)},
    'cpe', ${ratio(`${a}.spend`, eng)}, 'roas', ${ratio(`${a}.revenue`, `${a}.spend`)})`;
}

/**
 * One `campaign.metrics_updated` event per touched campaign whose totals moved:
 * {campaign_id, changes: {metric: {from, to}}, totals}, addressed to the
 * campaign's account. Answers the number of events.
 */
export async function emitCampaignEvents(tx: Queryable): Promise<number> {
  const diffs = SUMS.map(
    (m) => `SELECT b.campaign_id, '${m}' AS metric, to_json(b.${m}) AS f, to_json(a.${m}) AS t
    FROM campaign_totals_before b JOIN campaign_totals_after a USING (campaign_id) WHERE b.${m} IS DISTINCT FROM a.${m}`,
  );
  await tx.run(`CREATE OR REPLACE TEMP TABLE campaign_totals_after AS ${totalsSql()}`);
  await tx.run(`CREATE OR REPLACE TEMP TABLE campaign_changes AS
    SELECT campaign_id, json_group_object(metric, json_object('from', f, 'to', t)) AS changes, row_number() OVER (ORDER BY campaign_id) AS rn
    FROM (${diffs.join(' UNION ALL ')}) GROUP BY campaign_id`);
  const n = (await tx.one<{ n: number }>('SELECT count(*) AS n FROM campaign_changes'))?.n ?? 0;
  if (n === 0) return 0;
  const ids = Array.from({ length: n }, () => newId('evt'));
  await tx.run(
    `INSERT INTO events (event_id, type, account_id, campaign_id, payload)
    SELECT (?::VARCHAR[])[ch.rn], 'campaign.metrics_updated', c.account_id, ch.campaign_id,
      json_object('campaign_id', ch.campaign_id, 'changes', ch.changes, 'totals', ${totalsJson('a')})
    FROM campaign_changes ch JOIN campaigns c USING (campaign_id) JOIN campaign_totals_after a USING (campaign_id)`,
    [ids],
  );
  return n;
}
