import { describe, expect, it } from 'vitest';
import { POST_TYPES } from '../../pipelines/entities/source-entities.js';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { pipelineForEntity } from '../../pipelines/registry.js';
import { filesSource } from '../../pipelines/sources/files.source.js';
import type { EntityName } from '../../pipelines/entities/entity.js';
import type { ProfilePriceEstimate } from '../../data/creators/creator-profile.mapper.js';
import { refitPrices } from '../../data/derive/pricing.js';
import { CREATOR_COLUMNS, creatorRow, writeCsv } from '../fixtures/pipelines/files.js';
import { profileOf, testAppForFile, type TestApp } from '../helpers/app.js';

let t: TestApp;
let key: string;
testAppForFile({ creators: 400 }, (app, appKey) => {
  t = app;
  key = appKey;
});

async function priceOf(handle: string, platform: string): Promise<ProfilePriceEstimate | null> {
  return (await profileOf(t, { handle, platform }, key)).price_estimate;
}

/** A creator with (or without) campaign prices in the seeded store. */
async function creatorWith(history: boolean): Promise<{ creator_id: number; handle: string; platform: string }> {
  const row = await t.store.one<{ creator_id: number; handle: string; platform: string }>(
    `SELECT creator_id, handle, platform FROM creators c
    WHERE ${history ? '' : 'NOT'} EXISTS (SELECT 1 FROM price_estimates e WHERE e.creator_id = c.creator_id AND e.basis = 'campaigns')
    ORDER BY creator_id LIMIT 1`,
  );
  return row!;
}

async function load(
  entity: EntityName,
  columns: readonly string[],
  rows: Array<Record<string, string | number | boolean | null | undefined>>,
): Promise<void> {
  const file = writeCsv(t.dir, `${entity}-price.csv`, columns, rows);
  const outcome = await runPipeline({ store: t.store, config: t.config }, pipelineForEntity(entity), {
    source: filesSource([{ entity, file, format: 'csv' }]),
  });
  expect(outcome.runs[0]?.status, JSON.stringify(outcome.runs[0])).toBe('succeeded');
}

describe('price estimates on the profile', () => {
  it('a creator with campaign prices gets a campaign-based range per post type, low ≤ mid ≤ high', async () => {
    const c = await creatorWith(true);
    const e = await priceOf(c.handle, c.platform);
    expect(e).toMatchObject({ currency: 'USD', basis: 'campaigns' });
    expect(e!.observations).toBeGreaterThan(0);
    expect(['medium', 'high']).toContain(e!.confidence);
    expect(e!.per_type.map((p) => p.type).sort()).toEqual([...POST_TYPES].sort());
    for (const p of e!.per_type) expect(p.low <= p.mid && p.mid <= p.high && p.low > 0).toBe(true);
    const post = e!.per_type.find((p) => p.type === 'post')!;
    const column = await t.store.one<{ price: number }>(
      'SELECT price_post_usd AS price FROM creators WHERE creator_id = ?',
      [c.creator_id],
    );
    expect(column?.price).toBe(post.mid);
  });

  it('a creator without campaign history gets a peer-based estimate with low confidence and a wider range', async () => {
    const own = await priceOf((await creatorWith(true)).handle, (await creatorWith(true)).platform);
    const c = await creatorWith(false);
    const e = await priceOf(c.handle, c.platform);
    expect(e).toMatchObject({ basis: 'peers', observations: 0, confidence: 'low' });
    const width = (x: ProfilePriceEstimate): number => Math.log(x.per_type[0]!.high / x.per_type[0]!.low);
    expect(width(e!)).toBeGreaterThan(width(own!));
  });

  it('when a completed campaign with spend is loaded through the pipelines, the model is refitted and the creator becomes campaign-based', async () => {
    const c = await creatorWith(false);
    const before = Number((await t.store.one<{ n: number }>('SELECT count(*) AS n FROM pricing_models'))?.n);
    const campaign = 'cmp_price_test';
    await load(
      'campaigns',
      ['campaign_id', 'account_id', 'name', 'status', 'starts_on', 'ends_on', 'currency', 'updated_at'],
      [
        {
          campaign_id: campaign,
          account_id: t.demoAccountId!,
          name: 'Price test',
          status: 'completed',
          starts_on: '2026-10-01',
          ends_on: '2026-10-10',
          currency: 'USD',
          updated_at: '2026-10-11T00:00:00Z',
        },
      ],
    );
    await load(
      'campaign_creators',
      ['campaign_id', 'platform', 'handle', 'post_type', 'posts'],
      [{ campaign_id: campaign, platform: c.platform, handle: c.handle, post_type: 'Carousel', posts: 2 }],
    );
    await load(
      'campaign_metrics',
      ['campaign_id', 'date', 'platform', 'handle', 'impressions', 'spend'],
      [
        {
          campaign_id: campaign,
          date: '2026-10-05',
          platform: c.platform,
          handle: c.handle,
          impressions: 1000,
          spend: 900,
        },
      ],
    );
    const roster = await t.store.one('SELECT post_type, posts FROM campaign_creators WHERE campaign_id = ?', [
      campaign,
    ]);
    expect(roster).toEqual({ post_type: 'post', posts: 2 });
    const after = Number((await t.store.one<{ n: number }>('SELECT count(*) AS n FROM pricing_models'))?.n);
    expect(after).toBe(before + 3);
    const e = await priceOf(c.handle, c.platform);
    expect(e).toMatchObject({
      basis: 'campaigns',
      observations: 1,
      confidence: 'medium',
      model_version: `price-1.${after}`,
    });
  });

  it("a metrics load for an active campaign changes no price and does not refit (the demo feed's minute loads)", async () => {
    const active = await t.store.one<{ campaign_id: string; platform: string; handle: string }>(
      `SELECT cc.campaign_id, c.platform, c.handle FROM campaign_creators cc
      JOIN campaigns k ON k.campaign_id = cc.campaign_id AND k.status = 'active' JOIN creators c USING (creator_id)
      ORDER BY cc.campaign_id, c.creator_id LIMIT 1`,
    );
    const count = async (): Promise<number> =>
      Number((await t.store.one<{ n: number }>('SELECT count(*) AS n FROM pricing_models'))?.n);
    const before = await count();
    await load(
      'campaign_metrics',
      ['campaign_id', 'date', 'platform', 'handle', 'impressions', 'spend'],
      [{ ...active!, date: '2026-11-20', impressions: 777, spend: 12.5 }],
    );
    expect(await count()).toBe(before);
  });

  it("a creator loaded after the last fit gets the active model's peer-based estimate, the same the next fit stores", async () => {
    await load('creators', CREATOR_COLUMNS, [
      creatorRow({ handle: '@price_newcomer', followers: 54321, country: 'DE' }),
    ]);
    const seen = await priceOf('@price_newcomer', 'instagram');
    const active = await t.store.one<{ version: string }>(
      'SELECT version FROM pricing_models ORDER BY fitted_at DESC LIMIT 1',
    );
    expect(seen).toMatchObject({ basis: 'peers', observations: 0, confidence: 'low', model_version: active?.version });
    // stored by the load's derivation, so search by price finds the newcomer before the next fit
    const stored0 = await t.store.all<{ post_type: string; mid: number; basis: string; price: number | null }>(
      `SELECT e.post_type, e.mid, e.basis, c.price_post_usd AS price FROM price_estimates e JOIN creators c USING (creator_id)
      WHERE c.handle = '@price_newcomer' ORDER BY e.post_type`,
    );
    expect(stored0.map((r) => [r.post_type, r.mid])).toEqual(
      [...(seen?.per_type ?? [])].sort((a, b) => a.type.localeCompare(b.type)).map((p) => [p.type, p.mid]),
    );
    const postMid = stored0.find((r) => r.post_type === 'post')!.mid;
    expect(stored0.every((r) => r.basis === 'peers' && r.price === postMid)).toBe(true);
    const found = await t.api(`/v1/creators/search?price_max=${postMid}&country=DE&sort=-price&limit=100`, { key });
    const handles = ((await found.json()) as { creators: Array<{ handle: string }> }).creators.map((c) => c.handle);
    expect(handles).toContain('@price_newcomer');
    const refit = await t.store.transaction((tx) => refitPrices(tx));
    const stored = await priceOf('@price_newcomer', 'instagram');
    expect(stored?.model_version).toBe(refit?.version);
    // the same prices: the refit read the same campaign prices, so its coefficients are the same
    expect(stored?.per_type).toEqual(seen?.per_type);
  });

  it('before any model is fitted the profile says null', async () => {
    const c = await creatorWith(true);
    await t.store.run('DELETE FROM price_estimates');
    await t.store.run('DELETE FROM pricing_models');
    expect(await priceOf(c.handle, c.platform)).toBeNull();
  });
});
