// Search at scale (issue 14): seeds creators only (no history, no posts) at each
// size, then measures the same search workloads over HTTP — unique filter
// combinations, so no result cache helps — against the same SQL run directly on
// the same store. `npm run bench -- --only search-scale`.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { Agent, type Server } from 'node:http';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { testConfig } from '../config/config.js';
import { createLogger } from '../config/logger.js';
import type { CreatorSearchFilters, CreatorSort } from '../data/creators/creator-search.queries.js';
import { AGE_RANGES, GENDERS, SORT_KEYS, type SortKey } from '../data/creators/creator-taxonomy.js';
import { createKey } from '../data/keys/key.service.js';
import { PlanCatalogue } from '../data/plans/plan.service.js';
import { COUNTRIES, FIRST_NAMES, LAST_NAMES, NICHE_WORDS, NICHES, PLATFORMS } from '../data/seed/reference-data.js';
import { Store } from '../data/store.js';
import { dataVersion } from '../data/creators/creator-search.queries.js';
import { FORMAT, FORMAT_VERSION, indexDirOf, stemOf } from '../data/creators/search-index/index-files.js';
import { CONTENT_LISTS, contentFingerprintSql } from '../data/derive/content-metrics.js';
import { createApp } from '../server/app.js';
import { prng } from '../core/prng.js';
import { closeServers, httpGet, latency, listen, loadFromWorker, round, timed, type Latency } from './http-load.js';
import { searchSql } from './search-sql.js';

export interface SearchScaleOptions {
  /** Store sizes, smallest first (default 1M, 3M, 10M). */
  sizes?: number[];
  /** Folder holding one store per size (reused by later runs). */
  dir: string;
  /** Requests per single-client workload (default 300). */
  samples?: number;
  /** Seconds per throughput measurement (default 10). */
  seconds?: number;
  log?: (line: string) => void;
}

/** One workload at one size: over HTTP single-client, the same SQL run directly, and requests/s under load. */
export interface WorkloadFigures {
  http: Latency;
  sql: Latency;
  /** sql p50 / http p50: above 1 the endpoint beats the bare SQL it replaces. */
  p50_ratio: number;
  concurrency: number;
  rps: number;
}

export interface SizeFigures {
  creators: number;
  seed_s: number;
  store_mb: number;
  /** The index build from the store, in a process of its own that writes the index files (null: the files were there). */
  index_build_s: number | null;
  /** That process's peak resident memory (MB; null: no build). */
  index_build_peak_mb: number | null;
  /** The index files' size (MB). */
  index_file_mb: number;
  /** From the serving process's start to its first /readyz 200 (its index opened from the files). */
  index_open_s: number;
  /** From the serving process's start to its first search answered. */
  first_search_s: number;
  /** Resident memory the opened index added to the serving process (MB; lookalike vectors not prepared). */
  index_mb: number;
  /** What the index holds: JS heap and typed arrays added by the open (MB). */
  index_held_mb: number;
  /** index_held_mb per creator, in bytes. */
  index_bytes_per_creator: number;
  workloads: Record<WorkloadName, WorkloadFigures>;
}

export interface SearchScaleResult {
  sizes: SizeFigures[];
  /** Per workload, http p50 at the largest size ÷ at the smallest (target ≤ 2 for `selective`). */
  growth: Record<WorkloadName, number>;
}

const WORKLOADS = ['mixed', 'q', 'q+filters', 'selective', 'discovery'] as const;
export type WorkloadName = (typeof WORKLOADS)[number];
/** Connections of each workload's throughput run (the issue's: 50 for mixed searches, 20 for text). */
const CONCURRENCY: Record<WorkloadName, number> = { mixed: 50, q: 20, 'q+filters': 20, selective: 50, discovery: 50 };

/** Requests of each workload sent before its samples and not counted (no more than the samples). */
const WARM_UP = 50;

/** Unique requests generated for each throughput run: more than its seconds send at a few thousand a second. */
const LOAD_PATHS = 40_000;
const LOAD_PATHS_PER_S = 4_000;

/** Words of the generated bios (and the text workload's words). */
const BIO_WORDS = [
  'daily',
  'tips',
  'reviews',
  'vlogs',
  'stories',
  'recipes',
  'workouts',
  'tutorials',
  'adventures',
  'hacks',
  'guides',
  'news',
  'creator',
  'coach',
  'artist',
  'host',
  'founder',
  'writer',
  'maker',
  'explorer',
  'lover',
  'nerd',
  'mom',
  'dad',
  'student',
  'london',
  'paris',
  'tokyo',
  'berlin',
  'toronto',
  'sydney',
  'mumbai',
  'lagos',
  'vegan',
  'budget',
  'luxury',
  'outdoor',
  'retro',
];

export async function runSearchScaleBench(options: SearchScaleOptions): Promise<SearchScaleResult> {
  const sizes = options.sizes ?? [1_000_000, 3_000_000, 10_000_000];
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const out: SizeFigures[] = [];
  for (const size of sizes) {
    out.push(await measureSize(size, options, log));
    // the size's index is garbage now, but an idle process keeps it until a collection: the next size's
    // build runs in a process beside this one, and both must fit (12 GB at 10M)
    collectGarbage();
  }
  const first = out[0]!;
  const last = out.at(-1)!;
  const growth = Object.fromEntries(
    WORKLOADS.map((w) => [w, round(last.workloads[w].http.p50_ms / first.workloads[w].http.p50_ms)]),
  ) as Record<WorkloadName, number>;
  return { sizes: out, growth };
}

async function measureSize(
  size: number,
  options: SearchScaleOptions,
  log: (line: string) => void,
): Promise<SizeFigures> {
  const dir = join(options.dir, `creators-${size}`);
  // the store's cache is capped, so that what the index holds is not hidden by (or starved for) DuckDB's memory:
  // its default, 80 % of the machine, left the 10M build swapping
  const config = testConfig(dir, { CDS_LOG_LEVEL: 'silent', CDS_DUCKDB_MEMORY_LIMIT: STORE_MEMORY_LIMIT });
  const seedS =
    (await ensureCreatorsOnly(config.dbPath, size, log)) + (await ensureDiscovery(config.dbPath, size, log));
  const build = await ensureIndexFiles(config.dbPath, size, log);
  const store = await Store.open(config.dbPath, { poolSize: 6, memoryLimit: config.duckdb.memoryLimit });
  const servers: Server[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let app: ReturnType<typeof createApp> | null = null;
  try {
    const key = (await createKey(store, { account: 'bench-search-scale', plan: 'enterprise', scopes: ['read'] })).key;
    log(`search-scale ${size}: starting a server that opens the index files`);
    const before = process.memoryUsage();
    const started = performance.now();
    const server = await startSearchServer(store, config, key, servers, agent);
    app = server.app;
    const { base, get } = server;
    const openS = round((performance.now() - started) / 1000);
    await get('/v1/creators/search?limit=1');
    const firstS = round((performance.now() - started) / 1000);
    await app.settle();
    const after = process.memoryUsage();
    const indexMb = Math.round((after.rss - before.rss) / 1_048_576);
    const heldBytes = after.heapUsed + after.arrayBuffers - before.heapUsed - before.arrayBuffers;
    const heldMb = Math.round(heldBytes / 1_048_576);
    log(
      `search-scale ${size}: ready with the index opened in ${openS} s (first search answered at ${firstS} s), ` +
        `+${indexMb} MB resident, ${heldMb} MB held by the index (${Math.round(heldBytes / size)} B/creator)` +
        (build.build_s === null
          ? ''
          : `; built from the store in ${build.build_s} s, peak ${build.peak_mb} MB, in its own process`),
    );
    const samples = options.samples ?? 300;
    const workloads = {} as Record<WorkloadName, WorkloadFigures>;
    for (const name of WORKLOADS) {
      // a warm-up of other requests of the workload first, not counted: a serving process is past its first requests
      // (the code's compilation, the filters' first caches), which otherwise land in the p99 of 100 samples
      const warm = generator(name, size, 3);
      for (let i = 0; i < Math.min(WARM_UP, samples); i++) await get(`/v1/creators/search?${toQuery(warm())}`);
      const next = generator(name, size);
      const http: number[] = [];
      for (let i = 0; i < samples; i++) http.push(await timed(() => get(`/v1/creators/search?${toQuery(next())}`)));
      // the bare SQL scans: fewer samples at the large sizes keep the run short
      const sqlGen = generator(name, size);
      const sql: number[] = [];
      for (let i = 0; i < Math.min(samples, Math.max(20, Math.round(30_000_000 / size))); i++) {
        const { filters, sort } = sqlGen();
        // on `creators`, the always-current table, as the service ran searches before the index
        sql.push(await timed(() => searchSql(store, filters, sort, 'creators')));
      }
      const concurrency = CONCURRENCY[name];
      const loadGen = generator(name, size, 99);
      // unique requests, more than the run sends (checked below): the client runs in a worker thread, off the server's
      const seconds = options.seconds ?? 10;
      const paths = Array.from(
        { length: Math.min(LOAD_PATHS, LOAD_PATHS_PER_S * seconds) },
        () => `/v1/creators/search?${toQuery(loadGen())}`,
      );
      const { rps, sent } = await loadFromWorker(base, key, paths, concurrency, seconds);
      if (sent > paths.length)
        log(`search-scale ${size}: ${name}: ${sent} requests sent, ${paths.length} unique (some repeated)`);
      const figures = { http: latency(http), sql: latency(sql), p50_ratio: 0, concurrency, rps };
      figures.p50_ratio = round(figures.sql.p50_ms / figures.http.p50_ms);
      workloads[name] = figures;
      log(
        `search-scale ${size}: ${name}: http p50 ${figures.http.p50_ms} ms p99 ${figures.http.p99_ms} ms, sql p50 ${figures.sql.p50_ms} ms, ` +
          `${rps} req/s at ${concurrency} connections`,
      );
    }
    return {
      creators: size,
      seed_s: seedS,
      store_mb: Math.round(statSync(config.dbPath).size / 1_048_576),
      index_build_s: build.build_s,
      index_build_peak_mb: build.peak_mb,
      index_file_mb: build.file_mb,
      index_open_s: openS,
      first_search_s: firstS,
      index_mb: indexMb,
      index_held_mb: heldMb,
      index_bytes_per_creator: Math.round(heldBytes / size),
      workloads,
    };
  } finally {
    agent.destroy();
    await closeServers(servers);
    // background work (usage counts, index refreshes) ends before the store closes
    await app?.settle();
    await store.close();
  }
}

interface Request {
  filters: CreatorSearchFilters;
  sort: CreatorSort;
}

/**
 * The service over `store` as the bench serves it (no result cache, no rate limit that binds, lookalike vectors
 * left for a lookalike request: the index alone is measured), listening at `base`, once its `/readyz` answers
 * 200 — with index files beside the store, once its index is in place (docs/search.md). `get` requests with `key`.
 */
export async function startSearchServer(
  store: Store,
  config: ReturnType<typeof testConfig>,
  key: string,
  servers: Server[],
  agent: Agent,
): Promise<{ app: ReturnType<typeof createApp>; base: string; get: (path: string) => Promise<number> }> {
  const app = createApp({
    store,
    config,
    logger: createLogger({ logLevel: 'silent' }),
    plans: new PlanCatalogue(store, { overrides: { enterprise: { requestsPerMinute: 100_000_000 } } }),
    searchCacheTtlMs: 0,
    prepareLookalikes: false,
  });
  const base = await listen(app.callback(), servers);
  const get = (path: string): Promise<number> => httpGet(agent, base + path, key);
  while (
    !(await get('/readyz').then(
      () => true,
      () => false,
    ))
  )
    await new Promise((r) => setTimeout(r, 50));
  return { app, base, get };
}

/** The sort keys before `price`: every workload but `discovery` draws from these. */
const EARLIER_SORT_KEYS: readonly SortKey[] = SORT_KEYS.filter((k) => k !== 'price');

/** A full garbage collection, now. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/** A deterministic stream of unique requests of one workload. */
export function generator(name: WorkloadName, size: number, seed = 7): () => Request {
  const random = prng(seed + size);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  // the workloads measured before prices existed keep their sorts, so their figures compare with earlier runs
  const sortKeys = name === 'discovery' ? SORT_KEYS : EARLIER_SORT_KEYS;
  const sort = (): CreatorSort => ({ key: pick(sortKeys), descending: random() < 0.8 });
  const countries = COUNTRIES.map((c) => c.code);
  return () => {
    switch (name) {
      case 'selective':
        return {
          filters: { niche: [pick(NICHES)], country: pick(countries), platform: [pick(PLATFORMS)] },
          sort: sort(),
        };
      case 'q':
        return { filters: { q: [pick(random() < 0.5 ? BIO_WORDS : Object.values(NICHE_WORDS))] }, sort: sort() };
      case 'q+filters':
        return { filters: { q: [pick(BIO_WORDS)], ...oneFilter(random, pick, countries) }, sort: sort() };
      case 'discovery': {
        // one or two content/audience filters with zero to two of the others, fresh values each time
        const filters: CreatorSearchFilters = {};
        const n = Math.floor(random() * 3);
        for (let i = 0; i < n; i++) Object.assign(filters, oneFilter(random, pick, countries));
        const m = 1 + Math.floor(random() * 2);
        for (let i = 0; i < m; i++) Object.assign(filters, discoveryFilter(random, pick, size));
        return { filters: withFollowersRange(filters), sort: sort() };
      }
      case 'mixed': {
        // one to three filters, their values drawn fresh each time: no two requests alike
        const filters: CreatorSearchFilters = {};
        const n = 1 + Math.floor(random() * 3);
        for (let i = 0; i < n; i++) Object.assign(filters, oneFilter(random, pick, countries));
        return { filters: withFollowersRange(filters), sort: sort() };
      }
    }
  };
}

/** Filters drawn apart may ask for followers_max below followers_min, which matches nothing: that max is dropped. */
function withFollowersRange(filters: CreatorSearchFilters): CreatorSearchFilters {
  const { followers_min: min, followers_max: max } = filters;
  if (min !== undefined && max !== undefined && min > max) delete filters.followers_max;
  return filters;
}

function oneFilter(random: () => number, pick: <T>(xs: readonly T[]) => T, countries: string[]): CreatorSearchFilters {
  switch (Math.floor(random() * 9)) {
    case 0:
      return { niche: [pick(NICHES), pick(NICHES)].filter((v, i, a) => a.indexOf(v) === i) };
    case 1:
      return { country: pick(countries) };
    case 2:
      return { platform: [pick(PLATFORMS)] };
    case 3:
      return { followers_min: Math.round(1000 * Math.exp(random() * 7)) };
    case 4:
      return { followers_max: Math.round(5000 * Math.exp(random() * 6)) };
    case 5:
      return { engagement_min: round(random() * 8) };
    case 6:
      return { verified: random() < 0.5 };
    case 7:
      return { audience_country: pick(countries), audience_country_min_pct: Math.round(random() * 40) };
    default:
      return { growth_30d_min: round(random() * 10 - 2) };
  }
}

/** A value drawn log-uniformly from 0..n-1: the head is common, the tail long (how tags, words and brands spread). */
function zipfish(random: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(Math.exp(random() * Math.log(n))) - 1);
}

/** One content, audience or price filter over the values `ensureDiscovery` seeds. */
function discoveryFilter(random: () => number, pick: <T>(xs: readonly T[]) => T, size: number): CreatorSearchFilters {
  switch (Math.floor(random() * 13)) {
    case 0:
      return { hashtags: [`${pick(NICHES)}${zipfish(random, 40)}`] };
    case 1:
      return { hashtags: [`tag${zipfish(random, TAIL_TAGS)}`, `tag${zipfish(random, TAIL_TAGS)}`] };
    case 2:
      return { brands: [`@brand${zipfish(random, BRANDS)}`] };
    case 3:
      return {
        keywords: [`${pick(CAPTION_STEMS)}${zipfish(random, WORDS_PER_STEM)}`.slice(0, 3 + Math.floor(random() * 4))],
      };
    case 4:
      return { audience_gender: pick(GENDERS), audience_gender_min_pct: Math.round(random() * 70) };
    case 5: {
      const ranges = AGE_RANGES.filter(() => random() < 0.35);
      return { audience_age: ranges.length > 0 ? ranges : ['18-24'], audience_age_min_pct: Math.round(random() * 60) };
    }
    case 6:
      return {
        audience_language: pick(['en', 'es', 'pt', 'de', 'fr', 'ja']),
        audience_language_min_pct: Math.round(random() * 50),
      };
    case 7:
      return { audience_interest: pick(NICHES), audience_interest_min_pct: Math.round(random() * 40) };
    case 8:
      return { audience_real_min_pct: 40 + Math.round(random() * 50) };
    case 9:
      return { has_contact: random() < 0.5, also_on: [pick(PLATFORMS)] };
    case 10:
      return { last_posted_days_max: 1 + Math.floor(random() * 90), has_sponsored_posts: random() < 0.5 };
    case 11:
      // a budget per post, $20 to ~$8,000 (log-uniform: most budgets are small), over the prices seedPrices gives
      return { price_max: Math.round(20 * Math.exp(random() * 6)) };
    default:
      return { mentions: [`user${zipfish(random, size)}`], avg_views_min: Math.round(1000 * Math.exp(random() * 5)) };
  }
}

/** The request as the API's query string. */
export function toQuery({ filters, sort }: Request): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(filters))
    params.set(k, Array.isArray(v) ? v.join(k === 'q' || k === 'keywords' ? ' ' : ',') : String(v));
  params.set('sort', `${sort.descending ? '-' : ''}${sort.key}`);
  return params.toString();
}

/**
 * Creators (and their audience countries) generated by SQL straight into the
 * store: the search-relevant columns only, deterministic, 10M in about a minute.
 * Answers the seconds it took (0 when the store was there).
 */
async function ensureCreatorsOnly(dbPath: string, size: number, log: (line: string) => void): Promise<number> {
  if (existsSync(dbPath)) return 0;
  mkdirSync(join(dbPath, '..'), { recursive: true });
  log(`search-scale ${size}: seeding ${size.toLocaleString('en-US')} creators (creators only)`);
  const started = performance.now();
  // seeded under another name and renamed when complete, so an interrupted run leaves nothing that looks reusable
  const partial = `${dbPath}.partial`;
  rmSync(partial, { force: true });
  rmSync(`${partial}.wal`, { force: true });
  const store = await Store.open(partial);
  try {
    const list = (xs: readonly string[]): string => `[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(', ')}]`;
    const countries = COUNTRIES.map((c) => c.code);
    // weighted country draw: the demo world's weights, as a cumulative list
    const weights = COUNTRIES.map((c) => c.weight);
    const total = weights.reduce((a, b) => a + b, 0);
    const cumulative = weights.map((_, i) => weights.slice(0, i + 1).reduce((a, b) => a + b, 0) / total);
    await store.run(`CREATE TEMP TABLE gen AS SELECT i,
        (hash(i, 1) % 1000000) / 1e6 AS r1, (hash(i, 2) % 1000000) / 1e6 AS r2, (hash(i, 3) % 1000000) / 1e6 AS r3,
        (hash(i, 4) % 1000000) / 1e6 AS r4, (hash(i, 5) % 1000000) / 1e6 AS r5, (hash(i, 6) % 1000000) / 1e6 AS r6
      FROM range(1, ${size + 1}) t(i)`);
    await store.run(`INSERT INTO creators (creator_id, platform, handle, display_name, bio, niche, country, city, language, followers,
        verified, updated_at, engagement_rate, growth_30d_pct, audience_us_pct, authenticity_score, search_text)
      SELECT i, platform, handle, display_name, bio, niche, country, city, language, followers, verified, TIMESTAMP '2026-11-21',
        engagement_rate, growth, CASE WHEN country = 'US' THEN 40 + r6 * 50 ELSE r6 * 30 END, 40 + r5 * 60,
        lower(handle || ' ' || display_name || ' ' || bio)
      FROM (SELECT *,
          ${list(PLATFORMS)}[1 + (hash(i, 7) % ${PLATFORMS.length})::INTEGER] AS platform,
          ${list(NICHES)}[1 + (hash(i, 8) % ${NICHES.length})::INTEGER] AS niche,
          ${list(countries)}[list_position(list_transform(${`[${cumulative.join(', ')}]`}, x -> x >= r1), true)] AS country,
          lower(${list(FIRST_NAMES)}[1 + (hash(i, 9) % ${FIRST_NAMES.length})::INTEGER]) || '.' || i AS handle,
          ${list(FIRST_NAMES)}[1 + (hash(i, 9) % ${FIRST_NAMES.length})::INTEGER] || ' ' || ${list(LAST_NAMES)}[1 + (hash(i, 10) % ${LAST_NAMES.length})::INTEGER]
            AS display_name,
          ${list(BIO_WORDS)}[1 + (hash(i, 11) % ${BIO_WORDS.length})::INTEGER] || ' ' || ${list(BIO_WORDS)}[1 + (hash(i, 12) % ${BIO_WORDS.length})::INTEGER]
            || ' ' || ${list(BIO_WORDS)}[1 + (hash(i, 13) % ${BIO_WORDS.length})::INTEGER] AS bio,
          ${list(COUNTRIES.flatMap((c) => c.cities))}[1 + (hash(i, 14) % ${COUNTRIES.length * 3})::INTEGER] AS city,
          ${list(COUNTRIES.map((c) => c.language))}[1 + (hash(i, 15) % ${COUNTRIES.length})::INTEGER] AS language,
          (1000 * exp(r2 * 9))::BIGINT AS followers,
          r3 < 0.05 AS verified,
          CASE WHEN r4 < 0.03 THEN NULL ELSE round(r4 * 12, 2) END AS engagement_rate,
          CASE WHEN r5 < 0.05 THEN NULL ELSE round(r5 * 20 - 3, 2) END AS growth
        FROM gen)`);
    // three audience countries per creator
    await store.run(`INSERT INTO audience (creator_id, dimension, key, pct, as_of)
      SELECT i, 'country', ${list(countries)}[1 + ((hash(i, 20 + k)) % ${countries.length})::INTEGER], round(((hash(i, 30 + k) % 1000) / 1000.0) * 60, 1),
        TIMESTAMP '2026-11-21'
      FROM gen, range(3) r(k)`);
    await store.run('DROP TABLE gen');
    await store.run('CHECKPOINT');
  } finally {
    await store.close();
  }
  renameSync(partial, dbPath);
  const seconds = round((performance.now() - started) / 1000);
  log(`search-scale ${size}: seeded in ${seconds} s`);
  return seconds;
}

/**
 * The index files of the store's data, built (when absent) by tools/search-index-memory.ts in a process of
 * its own: the serving process then opens them as any process would, and the build's memory is not its own.
 */
async function ensureIndexFiles(
  dbPath: string,
  size: number,
  log: (line: string) => void,
): Promise<{ build_s: number | null; peak_mb: number | null; file_mb: number }> {
  const store = await Store.open(dbPath, { readOnly: true });
  const stem = stemOf(await dataVersion(store));
  await store.close();
  const manifest = join(indexDirOf(dbPath)!, `${stem}.json`);
  await untilOtherBuildEnds(`${manifest.replace(/json$/, 'bin')}.partial`, manifest, size, log);
  // files of another format are refused by the server, which then builds: rebuilt here, so an open is measured
  if (existsSync(manifest) && ofThisFormat(manifest)) {
    log(`search-scale ${size}: index files present`);
    return {
      build_s: null,
      peak_mb: null,
      file_mb: Math.round(statSync(manifest.replace(/json$/, 'bin')).size / 1_048_576),
    };
  }
  log(`search-scale ${size}: building the index files in a process of their own`);
  const root = resolve(import.meta.dirname, '..');
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--expose-gc',
      '--max-old-space-size=16384',
      join(root, 'bin/run-ts.mjs'),
      join(root, 'tools/search-index-memory.ts'),
      dbPath,
      '--write',
      '--json',
    ],
    { maxBuffer: 1 << 20 },
  );
  const figures = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    ms: number;
    max_rss_bytes: number;
    file_bytes: number;
  };
  return {
    build_s: round(figures.ms / 1000),
    peak_mb: Math.round(figures.max_rss_bytes / 1_048_576),
    file_mb: Math.round(figures.file_bytes / 1_048_576),
  };
}

/** Whether the manifest names the format and version the server reads. */
function ofThisFormat(manifest: string): boolean {
  const m = JSON.parse(readFileSync(manifest, 'utf8')) as { format?: string; format_version?: number };
  return m.format === FORMAT && m.format_version === FORMAT_VERSION;
}

/**
 * Waits while another process writes these files (their data file still
 * partial and written to within the last 45 minutes — a part such as the caption
 * words' postings takes that long at 10M on a busy machine: tools/search-index-memory.ts
 * --write run by hand, or another bench), so that two builds of one store do
 * not run side by side (at 10M each holds GBs for half an hour on a busy machine).
 */
async function untilOtherBuildEnds(
  partial: string,
  manifest: string,
  size: number,
  log: (line: string) => void,
): Promise<void> {
  const active = (): boolean => {
    try {
      return Date.now() - statSync(partial).mtimeMs < 45 * 60_000;
    } catch {
      return false;
    }
  };
  if (!active()) return;
  log(`search-scale ${size}: another process is writing the index files; waiting for it`);
  while (active() && !existsSync(manifest)) await new Promise((r) => setTimeout(r, 10_000));
}

/** DuckDB's memory limit for the bench's stores (CDS_DUCKDB_MEMORY_LIMIT). */
export const STORE_MEMORY_LIMIT = '2GB';

/** Long-tail hashtags, brands and caption words of the seeded content (see ensureDiscovery). */
const TAIL_TAGS = 200_000;
const BRANDS = 3_000;
const CAPTION_STEMS = [
  'morning',
  'recipe',
  'workout',
  'travel',
  'review',
  'unbox',
  'stream',
  'outfit',
  'beach',
  'coffee',
  'studio',
  'launch',
  'giveaway',
  'tutorial',
  'challenge',
  'family',
  'budget',
  'weekend',
  'sunset',
  'project',
];
const WORDS_PER_STEM = 2_000;

/** A uniform draw in [0, 1) per creator, from its id and a seed (the same on every run). */
const r = (seed: string): string => `((hash(creator_id, ${seed}) % 1000003) / 1000003.0)`;

/**
 * What a discovery search reads beyond the creators-only columns: the content
 * and audience (`seedContent`) and the price estimates (`seedPrices`), each
 * seeded when the store lacks it. Answers the seconds it took (0 when the store
 * had them).
 */
async function ensureDiscovery(dbPath: string, size: number, log: (line: string) => void): Promise<number> {
  const store = await Store.open(dbPath);
  try {
    return (await seedContent(store, size, log)) + (await seedPrices(store, size, log));
  } finally {
    await store.close();
  }
}

/**
 * The mid estimate of a `post` (`price_post_usd`, docs/search.md) as a pricing
 * model leaves it: roughly proportional to followers^0.8, with log-uniform
 * noise (×0.5 to ×2), whole dollars (so prices tie), about 10 % without an
 * estimate (NULL). Only when the column is all NULL: stores seeded before
 * prices existed get them, a store that has them keeps them.
 */
async function seedPrices(store: Store, size: number, log: (line: string) => void): Promise<number> {
  const priced = await store.one<{ n: number }>('SELECT count(price_post_usd) AS n FROM creators');
  if (priced!.n > 0) return 0;
  log(`search-scale ${size}: seeding price estimates`);
  const started = performance.now();
  await store.run(`UPDATE creators SET price_post_usd = CASE WHEN ${r('190')} < 0.1 THEN NULL
      ELSE round(0.02 * pow(followers, 0.8) * exp((${r('191')} - 0.5) * 1.4), 0) END`);
  await store.run('CHECKPOINT');
  const seconds = round((performance.now() - started) / 1000);
  log(`search-scale ${size}: prices seeded in ${seconds} s`);
  return seconds;
}

/**
 * The content columns and audience dimensions a discovery search reads,
 * generated by SQL straight into the creators-only store (as the derivation
 * would leave them after posts were loaded): per creator about 8 hashtags (a
 * niche head and a 200k-tag tail), 4 mentions, 0–3 brands, 40 distinct caption
 * words (a 40k-word vocabulary, log-uniform), views, the newest post, contacts,
 * linked platforms, and gender, age, language, interest and quality shares.
 * Answers the seconds it took (0 when the store had them).
 */
async function seedContent(store: Store, size: number, log: (line: string) => void): Promise<number> {
  if ((await store.one<{ n: number }>('SELECT count(*) AS n FROM creator_content'))!.n > 0) return 0;
  log(`search-scale ${size}: seeding content columns and audience dimensions`);
  const started = performance.now();
  const list = (xs: readonly string[]): string => `[${xs.map((x) => `'${x}'`).join(', ')}]`;
  const z = (seed: string, n: number): string =>
    `(least(${n - 1}, floor(exp(((hash(creator_id, ${seed}) % 1000003) / 1000003.0) * ln(${n}))) - 1))::BIGINT`;
  await store.run(`UPDATE creators SET
      sponsored_posts = CASE WHEN ${r('130')} < 0.4 THEN 1 + (hash(creator_id, 131) % 8) ELSE 0 END,
      avg_views = round(followers * (0.05 + ${r('150')} * 0.4), 1),
      reels_avg_views = CASE WHEN ${r('151')} < 0.3 THEN NULL ELSE round(followers * (0.1 + ${r('152')} * 0.8), 1) END,
      last_posted_at = TIMESTAMP '2026-11-21' - to_seconds((${r('153')} * ${r('153')} * 365 * 86400)::BIGINT),
      has_contact = ${r('154')} < 0.3`);
  await store.run(`INSERT INTO creator_content (creator_id, ${CONTENT_LISTS.join(', ')}, fingerprint)
    SELECT *, ${contentFingerprintSql()} FROM (SELECT creator_id,
      list_distinct(list_transform(range(5), k -> niche || ${z('100 + k', 40)}) || list_transform(range(3), k -> 'tag' || ${z('110 + k', TAIL_TAGS)})) AS hashtags,
      list_distinct(list_transform(range(4), k -> 'user' || ${z('120 + k', size)})) AS mentions,
      CASE WHEN ${r('130')} < 0.4 THEN list_distinct(list_transform(range(1 + (hash(creator_id, 132) % 3)::INTEGER), k -> '@brand' || ${z('133 + k', BRANDS)})) ELSE [] END AS brands,
      list_sort(list_distinct(list_transform(range(40), k -> ${list(CAPTION_STEMS)}[1 + (hash(creator_id, 140 + k) % ${CAPTION_STEMS.length})::INTEGER]
        || ${z('180 + k', WORDS_PER_STEM)}))) AS caption_words,
      list_sort(list_distinct(list_filter(${list(PLATFORMS)}, p -> (hash(creator_id, p) % 4) = 0 AND p <> platform))) AS linked_platforms
    FROM creators)`);
  const shares = (
    dimension: string,
    keys: readonly string[],
    pcts: string,
  ): string => `SELECT creator_id, '${dimension}', key, pct, TIMESTAMP '2026-11-21'
    FROM (SELECT creator_id, unnest(${list(keys)}) AS key, unnest(${pcts}) AS pct FROM creators)`;
  await store.run(`INSERT INTO audience (creator_id, dimension, key, pct, as_of)
    ${shares('gender', GENDERS, `[round(${r('160')} * 90, 1), round((1 - ${r('160')}) * 90, 1), 10.0]`)}
    UNION ALL ${shares('age', AGE_RANGES, `list_transform(range(${AGE_RANGES.length}), k -> round(((hash(creator_id, 170 + k) % 1000) / 1000.0) * 28, 1))`)}
    UNION ALL ${shares('quality', ['real', 'suspicious', 'mass_followers', 'influencers'], `[round(40 + ${r('175')} * 55, 1), 5.0, 3.0, 2.0]`)}
    UNION ALL SELECT creator_id, 'language', lang, round(${r('176')} * 90, 1), TIMESTAMP '2026-11-21'
      FROM (SELECT creator_id, coalesce(language, 'en') AS lang FROM creators)
    UNION ALL SELECT creator_id, 'interest', ${list(NICHES)}[1 + ((hash(creator_id, 177 + k)) % ${NICHES.length})::INTEGER], round(${r('178 + k')} * 40, 1),
      TIMESTAMP '2026-11-21' FROM creators, range(4) t(k)`);
  await store.run('CHECKPOINT');
  const seconds = round((performance.now() - started) / 1000);
  log(`search-scale ${size}: content seeded in ${seconds} s`);
  return seconds;
}
