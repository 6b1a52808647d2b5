// The mixed workload of the load drill: each client (a "worker") owns its lists
// and webhooks, so what it expects to find at the end is exact even under
// concurrency; every answer is recorded by operation.
import { call, honourRetryAfter } from '../test/helpers/drill-kit.js';

export interface CreatorRef {
  handle: string;
  platform: string;
}

export interface OpStats {
  count: number;
  ms: number[];
  statuses: Record<string, number>;
}

/** What one worker created and must find again at the end. */
export interface WorkerState {
  key: string;
  lists: Map<string, Set<string>>;
  webhooks: Set<string>;
  deletedWebhooks: Set<string>;
  exports: Set<string>;
}

export interface WorkloadContext {
  url: string;
  receiverUrl: string;
  pool: CreatorRef[];
  stats: Map<string, OpStats>;
  /** Unexpected answers (5xx and 4xx other than 429), first few kept with their body. */
  unexpected: string[];
  random: () => number;
}

const NICHES = ['beauty', 'fashion', 'fitness', 'food', 'travel', 'gaming', 'tech', 'finance', 'music', 'comedy'];
const COUNTRIES = ['US', 'GB', 'IN', 'BR', 'DE', 'FR', 'ES', 'MX', 'JP', 'CA'];
const PLATFORMS = ['instagram', 'tiktok', 'youtube', 'twitch', 'x'];
const SORTS = ['-followers', 'followers', '-engagement_rate', '-growth_30d', '-authenticity_score', 'price', '-price'];

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
const refKey = (c: CreatorRef) => `${c.platform}:${c.handle}`;

async function record(
  ctx: WorkloadContext,
  op: string,
  p: Promise<{ status: number; body: unknown; ms: number }>,
  okStatuses: number[] = [],
) {
  const r = await p;
  const s = ctx.stats.get(op) ?? { count: 0, ms: [], statuses: {} };
  s.count++;
  s.ms.push(r.ms);
  s.statuses[String(r.status)] = (s.statuses[String(r.status)] ?? 0) + 1;
  ctx.stats.set(op, s);
  const expected = (r.status >= 200 && r.status < 300) || r.status === 429 || okStatuses.includes(r.status);
  if (!expected && ctx.unexpected.length < 20)
    ctx.unexpected.push(`${op} → ${r.status} ${JSON.stringify(r.body).slice(0, 240)}`);
  return r;
}

/** One request of the mix, chosen by weight. */
export async function oneRequest(ctx: WorkloadContext, w: WorkerState): Promise<void> {
  const r = ctx.random();
  const { url } = ctx;
  if (r < 0.35) {
    const q = new URLSearchParams();
    if (ctx.random() < 0.6) q.set('niche', pick(ctx.random, NICHES));
    if (ctx.random() < 0.5) q.set('country', pick(ctx.random, COUNTRIES));
    if (ctx.random() < 0.3) q.set('platform', pick(ctx.random, PLATFORMS));
    if (ctx.random() < 0.3) q.set('followers_min', String(Math.floor(ctx.random() * 200_000)));
    if (ctx.random() < 0.2) q.set('engagement_min', (ctx.random() * 5).toFixed(1));
    if (ctx.random() < 0.15) q.set('price_max', String(Math.round(20 * Math.exp(ctx.random() * 6))));
    q.set('sort', pick(ctx.random, SORTS));
    q.set('limit', String(pick(ctx.random, [10, 20, 50])));
    await record(ctx, 'search', call(url, w.key, 'GET', `/v1/creators/search?${q}`));
  } else if (r < 0.55) {
    const c = pick(ctx.random, ctx.pool);
    await record(
      ctx,
      'profile',
      call(url, w.key, 'GET', `/v1/creators/${encodeURIComponent(c.handle)}?platform=${c.platform}`),
    );
  } else if (r < 0.75) {
    await listOp(ctx, w);
  } else if (r < 0.85) {
    const c = pick(ctx.random, ctx.pool);
    await record(ctx, 'verify', call(url, w.key, 'POST', '/v1/verify', { handle: c.handle, platform: c.platform }));
  } else if (r < 0.9) {
    if (w.exports.size < 3 || ctx.random() < 0.3) {
      const res = await record(
        ctx,
        'export create',
        call(url, w.key, 'POST', '/v1/exports', {
          source: 'search',
          filters: { niche: pick(ctx.random, NICHES) },
          format: pick(ctx.random, ['csv', 'parquet', 'ndjson', 'json']),
        }),
      );
      const id = (res.body as { id?: string } | null)?.id;
      if (res.status === 202 && id) w.exports.add(id);
    } else {
      await record(ctx, 'export status', call(url, w.key, 'GET', `/v1/exports/${pick(ctx.random, [...w.exports])}`));
    }
  } else if (r < 0.96) {
    await webhookOp(ctx, w);
  } else {
    await record(
      ctx,
      'misc',
      call(url, w.key, 'GET', pick(ctx.random, ['/v1/account', '/v1/meta', '/v1/campaigns', '/v1/lists'])),
    );
  }
}

async function listOp(ctx: WorkloadContext, w: WorkerState): Promise<void> {
  const { url } = ctx;
  if (w.lists.size < 2) {
    const res = await record(
      ctx,
      'list create',
      call(url, w.key, 'POST', '/v1/lists', { name: `drill ${w.lists.size}`, description: 'load drill' }),
    );
    const id = (res.body as { id?: string } | null)?.id;
    if (res.status === 201 && id) w.lists.set(id, new Set());
    return;
  }
  const [id, members] = pick(ctx.random, [...w.lists.entries()]);
  const r = ctx.random();
  if (r < 0.55) {
    const batch = Array.from({ length: 1 + Math.floor(ctx.random() * 5) }, () => pick(ctx.random, ctx.pool));
    const res = await record(
      ctx,
      'list add',
      call(url, w.key, 'POST', `/v1/lists/${id}/creators`, { creators: batch }),
    );
    if (res.status === 200) {
      const missing = new Set(
        ((res.body as { not_found?: Array<{ handle: string } | string> }).not_found ?? []).map((x) =>
          typeof x === 'string' ? x : x.handle,
        ),
      );
      for (const c of batch) if (!missing.has(c.handle)) members.add(refKey(c));
    }
  } else if (r < 0.75 && members.size > 0) {
    const victim = pick(ctx.random, [...members]);
    const [platform, handle] = victim.split(':') as [string, string];
    const res = await record(
      ctx,
      'list remove',
      call(url, w.key, 'DELETE', `/v1/lists/${id}/creators/${encodeURIComponent(handle)}?platform=${platform}`),
    );
    if (res.status === 204 || res.status === 200) members.delete(victim);
  } else {
    await record(ctx, 'list read', call(url, w.key, 'GET', `/v1/lists/${id}/creators?limit=50`));
  }
}

async function webhookOp(ctx: WorkloadContext, w: WorkerState): Promise<void> {
  const { url } = ctx;
  const r = ctx.random();
  if (w.webhooks.size < 2 || (r < 0.4 && w.webhooks.size < 4)) {
    const res = await record(
      ctx,
      'webhook create',
      call(url, w.key, 'POST', '/v1/webhooks', {
        url: ctx.receiverUrl,
        events: ['creator.updated', 'export.completed'],
      }),
    );
    const id = (res.body as { id?: string } | null)?.id;
    if (res.status === 201 && id) w.webhooks.add(id);
  } else if (r < 0.6) {
    const id = pick(ctx.random, [...w.webhooks]);
    const res = await record(ctx, 'webhook delete', call(url, w.key, 'DELETE', `/v1/webhooks/${id}`));
    if (res.status === 204 || res.status === 200) {
      w.webhooks.delete(id);
      w.deletedWebhooks.add(id);
    }
  } else if (r < 0.8) {
    await record(
      ctx,
      'webhook read',
      call(url, w.key, 'GET', `/v1/webhooks/${pick(ctx.random, [...w.webhooks])}/deliveries?limit=10`),
    );
  } else {
    await record(ctx, 'webhook list', call(url, w.key, 'GET', '/v1/webhooks?limit=50'));
  }
}

/** Every member of a list, walking its pages; null when a page could not be read (not a sign of lost members). */
export async function listMembers(url: string, key: string, id: string): Promise<Set<string> | null> {
  const out = new Set<string>();
  let cursor: string | null = null;
  for (let page = 0; page < 200; page++) {
    const path = `/v1/lists/${id}/creators?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    // the load may have spent the key's rate limit: a 429 is waited out, never taken for missing members
    const res = await honourRetryAfter(() => call(url, key, 'GET', path));
    if (res.status !== 200) return null;
    const body = res.body as { data: CreatorRef[]; next_cursor: string | null };
    for (const c of body.data) out.add(refKey(c));
    cursor = body.next_cursor;
    if (!cursor) return out;
  }
  return out;
}

/** Creators to use: pages of several searches. */
export async function creatorPool(url: string, key: string): Promise<CreatorRef[]> {
  const seen = new Map<string, CreatorRef>();
  for (const q of [
    'sort=-followers',
    'sort=followers',
    'niche=fitness',
    'niche=tech',
    'country=US',
    'platform=tiktok',
    'niche=food&country=GB',
  ]) {
    const res = await call(url, key, 'GET', `/v1/creators/search?${q}&limit=100`);
    for (const c of (res.body as { creators?: CreatorRef[] } | null)?.creators ?? [])
      seen.set(`${c.platform}:${c.handle}`, { handle: c.handle, platform: c.platform });
  }
  return [...seen.values()];
}
