// API bench (issue 3): search and profile latency over HTTP against the same SQL
// run directly on DuckDB, and search requests/s against a bare Koa handler, all
// in one run on one store. Not part of `npm test`; `npm run bench` calls runApiBench.
import { Agent, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import Koa from 'koa';
import { testConfig } from '../config/config.js';
import { createLogger } from '../config/logger.js';
import { getCreatorProfile } from '../data/creators/creator-profile.service.js';
import type { CreatorSearchFilters, CreatorSort } from '../data/creators/creator-search.queries.js';
import { SearchProjection } from '../data/creators/search-projection.js';
import { createKey } from '../data/keys/key.service.js';
import { Store } from '../data/store.js';
import { PlanCatalogue } from '../data/plans/plan.service.js';
import { createApp } from '../server/app.js';
import { ensureBenchStore } from './bench-store.js';
import { searchSql } from './search-sql.js';
import { closeServers, httpGet, latency, listen, load, round, timed } from './http-load.js';

export interface ApiBenchOptions {
  creators?: number;
  /** Folder of the bench store; reused when it holds one, else copied from a sibling seed-N store, else seeded. */
  dir?: string;
  runs?: number;
  quick?: boolean;
  /** Seconds per throughput measurement (default 10; quick 3). */
  seconds?: number;
  concurrency?: number;
  log?: (line: string) => void;
}

export type { Latency } from './http-load.js';
import type { Latency } from './http-load.js';

export interface ApiBenchResult {
  creators: number;
  /** Seconds to rebuild the sorted search projection (done after data changes, in the background). */
  projection_build_s: number;
  search: {
    /** The same page + count SQL the endpoint runs, called directly (no HTTP, no cache). */
    sql: Latency;
    /** Over HTTP with the result cache off: the honest cost of a cold search. */
    http_uncached: Latency;
    /** Over HTTP with the cache on, after one pass over the mix. */
    http_cached: Latency;
    /** http_uncached p50 / sql p50 (target ≤ 1.5). */
    p50_ratio: number;
    per_query: Array<{ name: string; sql_p50_ms: number; http_uncached_p50_ms: number }>;
  };
  profile: { sql: Latency; http: Latency; p50_ratio: number };
  throughput: {
    concurrency: number;
    bare_koa_rps: number;
    search_cached_rps: number;
    search_uncached_rps: number;
    /** search_cached_rps / bare_koa_rps. */
    cached_ratio: number;
  };
}

/** The mixed search set: [name, query string, the same filters as the service sees them, sort]. */
const MIX: Array<[string, string, CreatorSearchFilters, CreatorSort]> = [
  ['all', '', {}, { key: 'followers', descending: true }],
  ['niche', 'niche=food', { niche: ['food'] }, { key: 'followers', descending: true }],
  [
    'niche+country',
    'niche=beauty,fashion&country=US',
    { niche: ['beauty', 'fashion'], country: 'US' },
    { key: 'followers', descending: true },
  ],
  [
    'followers range',
    'followers_min=100000&followers_max=1000000',
    { followers_min: 100000, followers_max: 1000000 },
    { key: 'followers', descending: true },
  ],
  [
    'platform+engagement',
    'platform=tiktok&engagement_min=5',
    { platform: ['tiktok'], engagement_min: 5 },
    { key: 'engagement_rate', descending: true },
  ],
  [
    'country+language',
    'country=BR&language=pt',
    { country: 'BR', language: 'pt' },
    { key: 'followers', descending: true },
  ],
  [
    'verified+niche',
    'verified=true&niche=tech,gaming',
    { verified: true, niche: ['tech', 'gaming'] },
    { key: 'followers', descending: true },
  ],
  [
    'audience US',
    'audience_country=US&audience_country_min_pct=50',
    { audience_country: 'US', audience_country_min_pct: 50 },
    { key: 'followers', descending: true },
  ],
  ['growth', 'growth_30d_min=5&sort=-growth_30d', { growth_30d_min: 5 }, { key: 'growth_30d', descending: true }],
  ['city', 'city=london', { city: 'london' }, { key: 'followers', descending: true }],
  [
    'engagement asc',
    'niche=travel&sort=engagement_rate',
    { niche: ['travel'] },
    { key: 'engagement_rate', descending: false },
  ],
  ['text q', 'q=travel', { q: ['travel'] }, { key: 'followers', descending: true }],
];

export async function runApiBench(options: ApiBenchOptions = {}): Promise<ApiBenchResult> {
  const creators = options.creators ?? 1_000_000;
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const quick = options.quick ?? false;
  const rounds = quick ? 3 : Math.max(5, (options.runs ?? 1) * 10);
  const seconds = options.seconds ?? (quick ? 3 : 10);
  const concurrency = options.concurrency ?? 50;
  const dir = resolve(options.dir ?? join('bench', 'work', `api-${creators}`));
  const config = testConfig(dir, { CDS_LOG_LEVEL: 'silent' });
  await ensureBenchStore(config.dbPath, creators, log, 'api');
  const store = await Store.open(config.dbPath, { poolSize: 6 });
  const plans = new PlanCatalogue(store, { overrides: { enterprise: { requestsPerMinute: 100_000_000 } } });
  const servers: Server[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    const key = (await createKey(store, { account: 'bench-api', plan: 'enterprise', scopes: ['read'] })).key;
    const buildStarted = performance.now();
    await new SearchProjection(store).rebuild();
    const projectionBuildS = round((performance.now() - buildStarted) / 1000);
    log(`api: search projection built in ${projectionBuildS} s`);
    const logger = createLogger({ logLevel: 'silent' });
    const cachedApp = createApp({ store, config, logger, plans });
    const uncachedApp = createApp({ store, config, logger, plans, searchCacheTtlMs: 0 });
    const cached = await listen(cachedApp.callback(), servers);
    const uncached = await listen(uncachedApp.callback(), servers);
    const bare = await listen(bareKoa().callback(), servers);
    const get = (base: string, path: string): Promise<number> => httpGet(agent, base + path, key);
    // the first search starts each app's search index build; measure once both are built, as a running server is
    const indexStarted = performance.now();
    await Promise.all([get(cached, '/v1/creators/search'), get(uncached, '/v1/creators/search')]);
    await Promise.all([cachedApp.settle(), uncachedApp.settle()]);
    log(`api: search index built in ${round((performance.now() - indexStarted) / 1000)} s (two apps at once)`);

    log(`api: search latency, ${MIX.length} queries × ${rounds} rounds`);
    const sqlTimes = new Map<string, number[]>();
    const httpTimes = new Map<string, number[]>();
    for (let r = 0; r < rounds; r++) {
      for (const [name, query, filters, sort] of MIX) {
        push(sqlTimes, name, await timed(() => searchSql(store, filters, sort, filters.q ? 'creators' : 'projection')));
        push(httpTimes, name, await timed(() => get(uncached, `/v1/creators/search?${query}`)));
      }
    }
    for (const [, query] of MIX) await get(cached, `/v1/creators/search?${query}`);
    const cachedTimes: number[] = [];
    for (let r = 0; r < rounds; r++)
      for (const [, query] of MIX) cachedTimes.push(await timed(() => get(cached, `/v1/creators/search?${query}`)));

    log('api: profile latency');
    const sample = await store.all<{ handle: string; platform: string }>(
      `SELECT handle, platform FROM creators USING SAMPLE ${quick ? 30 : 200} ROWS (reservoir, 7)`,
    );
    const profileSql: number[] = [];
    const profileHttp: number[] = [];
    for (const c of sample) {
      profileSql.push(await timed(() => getCreatorProfile(store, c.handle, c.platform)));
      profileHttp.push(
        await timed(() => get(uncached, `/v1/creators/${encodeURIComponent(c.handle)}?platform=${c.platform}`)),
      );
    }

    log(`api: throughput, ${concurrency} connections × ${seconds} s each`);
    const bareRps = await load(concurrency, seconds, (i) =>
      get(bare, `/v1/creators/search?${MIX[i % MIX.length]![1]}`),
    );
    const cachedRps = await load(concurrency, seconds, (i) =>
      get(cached, `/v1/creators/search?${MIX[i % MIX.length]![1]}`),
    );
    const uncachedRps = await load(concurrency, seconds, (i) =>
      get(uncached, `/v1/creators/search?${MIX[i % MIX.length]![1]}`),
    );

    const sql = latency([...sqlTimes.values()].flat());
    const httpU = latency([...httpTimes.values()].flat());
    const pSql = latency(profileSql);
    const pHttp = latency(profileHttp);
    return {
      creators,
      projection_build_s: projectionBuildS,
      search: {
        sql,
        http_uncached: httpU,
        http_cached: latency(cachedTimes),
        p50_ratio: round(httpU.p50_ms / sql.p50_ms),
        per_query: MIX.map(([name]) => ({
          name,
          sql_p50_ms: latency(sqlTimes.get(name) ?? []).p50_ms,
          http_uncached_p50_ms: latency(httpTimes.get(name) ?? []).p50_ms,
        })),
      },
      profile: { sql: pSql, http: pHttp, p50_ratio: round(pHttp.p50_ms / pSql.p50_ms) },
      throughput: {
        concurrency,
        bare_koa_rps: bareRps,
        search_cached_rps: cachedRps,
        search_uncached_rps: uncachedRps,
        cached_ratio: round(cachedRps / bareRps),
      },
    };
  } finally {
    agent.destroy();
    await closeServers(servers);
    await store.close();
  }
}

/** The reference: a Koa app answering a small JSON body with no work behind it. */
function bareKoa(): Koa {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = { results: 0, creators: [], next_cursor: null };
  });
  return app;
}

function push(map: Map<string, number[]>, key: string, value: number): void {
  map.set(key, [...(map.get(key) ?? []), value]);
}
