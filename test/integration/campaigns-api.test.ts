import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';

type Metrics = Record<string, number | null>;
interface Campaign {
  id: string;
  name: string;
  brand: string | null;
  budget: number | null;
  status: string;
  starts_on: string;
  ends_on: string;
  metrics: Metrics;
  updated_at: string;
}
interface Detail extends Campaign {
  creators: Array<Metrics & { handle: string; platform: string }>;
  daily: Array<Metrics & { date: string }>;
}
interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

const COUNTS = ['impressions', 'reach', 'views', 'likes', 'comments', 'shares', 'saves', 'clicks', 'conversions'];
const SUMS_SQL = `${COUNTS.map((c) => `sum(${c})::BIGINT AS ${c}`).join(', ')}, sum(revenue) AS revenue, sum(spend) AS spend`;

let t: TestApp;
let demoKey: string;

beforeAll(async () => {
  t = await startTestApp({ creators: 2000 });
  demoKey = await t.key({ account: 'demo' });
});
afterAll(async () => {
  await t.close();
});

/** What the metrics must be, from SQL sums and ratios worked out here, not by the service. */
function expected(s: Record<string, unknown>): Record<string, number | null> {
  const n = (k: string) => Number(s[k] ?? 0);
  const engagements = n('likes') + n('comments') + n('shares') + n('saves');
  const div = (a: number, b: number) => (b === 0 ? null : a / b);
  return {
    ...Object.fromEntries(COUNTS.map((c) => [c, n(c)])),
    revenue: n('revenue'),
    spend: n('spend'),
    engagements,
    engagement_rate: div(engagements * 100, n('impressions')),
    ctr: div(n('clicks') * 100, n('impressions')),
    cpm: div(n('spend') * 1000, n('impressions')),
    cpc: div(n('spend'), n('clicks')),
    cpe: div(n('spend'), engagements),
    roas: div(n('revenue'), n('spend')),
  };
}

function expectMetrics(actual: Metrics, want: Record<string, number | null>): void {
  for (const [k, v] of Object.entries(want)) {
    if (v === null) expect(actual[k], k).toBeNull();
    else expect(actual[k], k).toBeCloseTo(v, 2);
  }
}

async function get<T>(path: string, key = demoKey): Promise<T> {
  const res = await t.api(path, { key });
  expect(res.status, path).toBe(200);
  return (await res.json()) as T;
}

async function campaignsWithData(): Promise<string[]> {
  const rows = await t.store.all<{ campaign_id: string }>(
    `SELECT DISTINCT campaign_id FROM campaign_metrics
    WHERE campaign_id IN (SELECT campaign_id FROM campaigns WHERE account_id = ?) ORDER BY campaign_id`,
    [t.demoAccountId],
  );
  expect(rows.length).toBeGreaterThanOrEqual(3);
  return rows.map((r) => r.campaign_id);
}

describe('GET /v1/campaigns', () => {
  it('when the demo account pages its campaigns, all 12 come once, each with totals equal to the SQL sums', async () => {
    const seen: Campaign[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<Campaign> = await get(`/v1/campaigns?limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      seen.push(...page.data);
      cursor = page.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(12);
    expect(new Set(seen.map((c) => c.id)).size).toBe(12);
    const sums = await t.store.all(
      `SELECT campaign_id, ${SUMS_SQL} FROM campaign_metrics
      WHERE campaign_id IN (SELECT campaign_id FROM campaigns WHERE account_id = ?) GROUP BY campaign_id`,
      [t.demoAccountId],
    );
    expect(sums.length).toBeGreaterThanOrEqual(10);
    for (const s of sums) expectMetrics(seen.find((c) => c.id === s['campaign_id'])!.metrics, expected(s));
  });

  it('when filtered by status, only those campaigns come; a draft has zero totals and null ratios', async () => {
    const page = await get<Page<Campaign>>('/v1/campaigns?status=draft');
    expect(page.data.length).toBeGreaterThan(0);
    for (const c of page.data) expect(c.status).toBe('draft');
    const draft = page.data[0]!.metrics;
    expect(draft).toMatchObject({
      impressions: 0,
      engagements: 0,
      spend: 0,
      engagement_rate: null,
      ctr: null,
      cpm: null,
      cpc: null,
      cpe: null,
      roas: null,
    });
    const bad = await t.api('/v1/campaigns?status=running', { key: demoKey });
    expect(bad.status).toBe(400);
  });

  it('when another account lists campaigns, it sees none of the demo account’s', async () => {
    expect((await get<Page<Campaign>>('/v1/campaigns', await t.key())).data).toEqual([]);
  });
});

describe('GET /v1/campaigns/{id}', () => {
  it('when a campaign is read, totals, per-creator and per-day figures equal sums computed from the daily rows', async () => {
    for (const id of (await campaignsWithData()).slice(0, 3)) {
      const c = await get<Detail>(`/v1/campaigns/${id}`);
      expectMetrics(
        c.metrics,
        expected((await t.store.one(`SELECT ${SUMS_SQL} FROM campaign_metrics WHERE campaign_id = ?`, [id]))!),
      );
      const perCreator = await t.store.all(
        `SELECT cr.handle, cr.platform, ${SUMS_SQL} FROM campaign_metrics m
        JOIN creators cr USING (creator_id) WHERE campaign_id = ? GROUP BY ALL`,
        [id],
      );
      expect(c.creators).toHaveLength(perCreator.length);
      for (const s of perCreator) {
        expectMetrics(c.creators.find((x) => x.handle === s['handle'] && x.platform === s['platform'])!, expected(s));
      }
      const perDay = await t.store.all(
        `SELECT strftime(date, '%Y-%m-%d') AS d, ${SUMS_SQL} FROM campaign_metrics
        WHERE campaign_id = ? GROUP BY date ORDER BY date`,
        [id],
      );
      expect(c.daily.map((d) => d.date)).toEqual(perDay.map((s) => s['d']));
      perDay.forEach((s, i) => expectMetrics(c.daily[i]!, expected(s)));
    }
  });

  it("each creator carries its sponsored posts' engagement rate over its organic posts'", async () => {
    const id = (await campaignsWithData())[0]!;
    const c = await get<Detail>(`/v1/campaigns/${id}`);
    const rates = await t.store.all<{
      handle: string;
      platform: string;
      sponsored: number | null;
      organic: number | null;
    }>(
      `SELECT handle, platform,
        engagement_rate_sponsored AS sponsored, engagement_rate_organic AS organic FROM creators
      WHERE creator_id IN (SELECT creator_id FROM campaign_metrics WHERE campaign_id = ?)`,
      [id],
    );
    expect(rates.filter((r) => r.sponsored !== null && r.organic !== null).length).toBeGreaterThan(0);
    for (const r of rates) {
      const shown = c.creators.find((x) => x.handle === r.handle && x.platform === r.platform)![
        'engagement_rate_vs_organic'
      ];
      if (r.sponsored === null || r.organic === null || r.organic === 0) expect(shown).toBeNull();
      else expect(shown).toBeCloseTo(r.sponsored / r.organic, 3);
    }
  });

  it("each creator's CPM is a multiple of its peer group's median CPM over their recorded campaigns", async () => {
    const id = (await campaignsWithData())[0]!;
    const member = await t.store.one<{ creator_id: number; handle: string; platform: string; from: number }>(
      `SELECT c.creator_id, c.handle, c.platform, g.followers_from AS "from" FROM campaign_metrics m
      JOIN creators c USING (creator_id)
      JOIN peer_groups g ON g.platform = c.platform AND g.niche = c.niche AND c.followers >= g.followers_from
        AND (g.followers_to IS NULL OR c.followers < g.followers_to)
      WHERE m.campaign_id = ? GROUP BY ALL HAVING sum(m.impressions) > 0 AND sum(m.spend) > 0 ORDER BY c.creator_id LIMIT 1`,
      [id],
    );
    // another account's campaign pays six of its peers (and one creator of another group) at known CPMs
    const peers = await t.store.all<{ creator_id: number }>(
      `SELECT c.creator_id FROM creators c JOIN creators me ON me.creator_id = ?
      JOIN peer_groups g ON g.platform = me.platform AND g.niche = me.niche AND g.followers_from = ?
      WHERE c.platform = me.platform AND c.niche = me.niche AND c.followers >= g.followers_from
        AND (g.followers_to IS NULL OR c.followers < g.followers_to) AND c.creator_id <> me.creator_id
        AND c.creator_id NOT IN (SELECT creator_id FROM campaign_metrics)
      ORDER BY c.creator_id LIMIT 6`,
      [member!.creator_id, member!.from],
    );
    expect(peers.length).toBe(6);
    await t.store.run(`INSERT INTO campaigns (campaign_id, account_id, name, status, currency, updated_at)
      VALUES ('cmp_market1', 'acc_other', 'Market', 'completed', 'USD', TIMESTAMP '2026-10-01'),
        ('cmp_market2', 'acc_other', 'Market in euros', 'completed', 'EUR', TIMESTAMP '2026-10-01')`);
    for (const [i, p] of peers.entries()) {
      // CPMs 10, 12, …, 20 in dollars (median 15); the euro campaign's CPM of 1,000 must not count
      await t.store.run(
        `INSERT INTO campaign_metrics (campaign_id, date, creator_id, impressions, spend)
        VALUES ('cmp_market1', DATE '2026-10-02', ?, 100000, ?), ('cmp_market2', DATE '2026-10-02', ?, 1000, 1000)`,
        [p.creator_id, (10 + 2 * i) * 100, p.creator_id],
      );
    }
    try {
      const c = await get<Detail>(`/v1/campaigns/${id}`);
      const shown = c.creators.find((x) => x.handle === member!.handle && x.platform === member!.platform)!;
      const own = (Number(shown['spend']) * 1000) / Number(shown['impressions']);
      // the peers' CPMs: the six above and any of the group's creators the demo campaigns paid, in dollars
      const paid = await t.store.all<{ spend: number; impressions: number }>(
        `SELECT sum(m.spend)::DOUBLE AS spend, sum(m.impressions)::DOUBLE AS impressions
        FROM campaign_metrics m JOIN campaigns cp USING (campaign_id) JOIN creators c USING (creator_id)
        JOIN creators me ON me.creator_id = ?
        JOIN peer_groups g ON g.platform = me.platform AND g.niche = me.niche AND g.followers_from = ?
        WHERE cp.currency = 'USD' AND c.platform = me.platform AND c.niche = me.niche AND c.followers >= g.followers_from
          AND (g.followers_to IS NULL OR c.followers < g.followers_to) AND c.creator_id <> me.creator_id
        GROUP BY c.creator_id`,
        [member!.creator_id, member!.from],
      );
      const cpms = paid
        .filter((r) => r.spend > 0 && r.impressions > 0)
        .map((r) => (r.spend * 1000) / r.impressions)
        .sort((a, b) => a - b);
      expect(cpms.length).toBeGreaterThanOrEqual(6);
      const mid = cpms.length >> 1;
      const median = cpms.length % 2 === 1 ? cpms[mid]! : (cpms[mid - 1]! + cpms[mid]!) / 2;
      expect(shown['cpm_vs_peers']).toBeCloseTo(own / median, 3);
    } finally {
      await t.store.run(`DELETE FROM campaign_metrics WHERE campaign_id IN ('cmp_market1', 'cmp_market2')`);
      await t.store.run(`DELETE FROM campaigns WHERE campaign_id IN ('cmp_market1', 'cmp_market2')`);
    }
  });

  it('when from/to are given, metrics, daily and creators count only those days', async () => {
    const id = (await campaignsWithData())[0]!;
    const days = await t.store.all<{ d: string }>(
      `SELECT DISTINCT strftime(date, '%Y-%m-%d') AS d FROM campaign_metrics
      WHERE campaign_id = ? ORDER BY d`,
      [id],
    );
    const from = days[3]!.d;
    const to = days[9]!.d;
    const c = await get<Detail>(`/v1/campaigns/${id}?from=${from}&to=${to}`);
    expect(c.daily.map((d) => d.date)).toEqual(days.slice(3, 10).map((d) => d.d));
    const sums = await t.store.one(
      `SELECT ${SUMS_SQL} FROM campaign_metrics WHERE campaign_id = ? AND date BETWEEN ?::DATE AND ?::DATE`,
      [id, from, to],
    );
    expectMetrics(c.metrics, expected(sums!));
    expect(c.creators.reduce((a, x) => a + Number(x.impressions), 0)).toBe(c.metrics.impressions);
    const whole = await get<Detail>(`/v1/campaigns/${id}`);
    expect(Number(c.metrics.impressions)).toBeLessThan(Number(whole.metrics.impressions));
    const onlyFrom = await get<Detail>(`/v1/campaigns/${id}?from=${to}`);
    expect(onlyFrom.daily[0]?.date).toBe(to);
  });

  it('when from is after to, or a date is malformed, the answer is 400 naming the parameter', async () => {
    const id = (await campaignsWithData())[0]!;
    const backwards = await t.api(`/v1/campaigns/${id}?from=2026-10-10&to=2026-10-01`, { key: demoKey });
    expect(backwards.status).toBe(400);
    expect(await backwards.json()).toMatchObject({ code: 'invalid_parameter', errors: [{ param: 'from' }] });
    const bad = await t.api(`/v1/campaigns/${id}?to=2026-02-30`, { key: demoKey });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: Array<{ param: string }> }).errors[0]?.param).toBe('to');
    expect((await t.api('/v1/campaigns?from=2026-10-10&to=2026-10-01', { key: demoKey })).status).toBe(400);
  });

  it('when the campaign is another account’s or does not exist, the answer is 404', async () => {
    const id = (await campaignsWithData())[0]!;
    const other = await t.api(`/v1/campaigns/${id}`, { key: await t.key() });
    expect(other.status).toBe(404);
    expect(((await other.json()) as { code: string }).code).toBe('not_found');
    expect((await t.api('/v1/campaigns/cmp_doesnotexist', { key: demoKey })).status).toBe(404);
  });

  it('when impressions, clicks, engagements or spend sum to zero, the ratios over them are null, not NaN', async () => {
    const { key, accountId } = await t.keyWithAccount();
    const [a, b] = await t.store.all<{ creator_id: number }>(
      'SELECT creator_id FROM creators ORDER BY creator_id LIMIT 2',
    );
    await t.store.run(
      `INSERT INTO campaigns (campaign_id, account_id, name, brand, status, starts_on, ends_on, currency, budget, updated_at)
      VALUES ('cmp_zero1', ?, 'Zero', NULL, 'active', DATE '2026-11-01', DATE '2026-11-30', 'USD', NULL, TIMESTAMP '2026-11-21 00:00:00')`,
      [accountId],
    );
    await t.store.run(
      `INSERT INTO campaign_creators (campaign_id, creator_id) VALUES ('cmp_zero1', ?), ('cmp_zero1', ?)`,
      [a!.creator_id, b!.creator_id],
    );
    // creator a: spend with nothing to show for it; creator b: nothing at all
    await t.store.run(
      `INSERT INTO campaign_metrics (campaign_id, date, creator_id, spend) VALUES
      ('cmp_zero1', DATE '2026-11-02', ?, 12.5), ('cmp_zero1', DATE '2026-11-03', ?, 0)`,
      [a!.creator_id, b!.creator_id],
    );
    const c = await get<Detail>('/v1/campaigns/cmp_zero1', key);
    expect(c.metrics).toMatchObject({
      impressions: 0,
      clicks: 0,
      engagements: 0,
      spend: 12.5,
      revenue: 0,
      engagement_rate: null,
      ctr: null,
      cpm: null,
      cpc: null,
      cpe: null,
      roas: 0,
    });
    expect(c.budget === null && c.brand === null).toBe(true);
    const quiet = c.creators.find((x) => x.spend === 0)!;
    expect(quiet.roas).toBeNull();
    expect(c.daily.map((d) => d.date)).toEqual(['2026-11-02', '2026-11-03']);
    expect(c.daily[1]!.roas).toBeNull();
    expect(JSON.stringify(c)).not.toMatch(/NaN|Infinity/);
  });
});

describe('OpenAPI', () => {
  it('when the document is fetched, it validates and documents the campaigns and lists operations', async () => {
    const doc = (await (await t.api('/v1/openapi.json')).json()) as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string }> }>>;
    };
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(Object.keys(doc.paths['/v1/campaigns/{id}']!)).toEqual(['get']);
    expect(doc.paths['/v1/campaigns']!['get']!.parameters!.map((p) => p.name).sort()).toEqual([
      'cursor',
      'from',
      'limit',
      'status',
      'to',
    ]);
    expect(Object.keys(doc.paths['/v1/lists/{id}']!).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(doc.paths['/v1/lists/{id}/creators']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/v1/lists/{id}/creators/{handle}']!)).toEqual(['delete']);
  });
});
