// The areas `npm run bench` measures. Each section calls the area's own bench
// module (owned by that area) through a dynamic import, so a missing or broken
// module makes that section "missing"/"failed" in the report instead of
// stopping the run; the seed section is measured here.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensureDemoAccount } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import { Store } from '../data/store.js';
import { ensureBenchStore } from './bench-store.js';

export const SECTIONS = [
  'seed',
  'ingest',
  'api',
  'verify',
  'export',
  'webhooks',
  'sync',
  'sources',
  'cluster',
  'search-scale',
  'lookalikes',
  'overlap',
] as const;
export type SectionName = (typeof SECTIONS)[number];
/** Sections a plain `npm run bench` leaves out (they seed stores of their own sizes); `--only` runs them. */
export const OPT_IN: ReadonlySet<SectionName> = new Set(['search-scale']);

/** Sizes and places shared by every section of one bench run. */
export interface SectionContext {
  creators: number;
  runs: number;
  quick: boolean;
  /** Toy sizes for the smoke test: shortest throughput windows and fewest samples. */
  smoke?: boolean;
  /** Reusable working folder (bench/work by default; git-ignored). */
  workDir: string;
  log: (line: string) => void;
}

/** Thrown when an area's bench module is not there (yet): the report prints "missing". */
export class MissingBenchError extends Error {
  override name = 'MissingBenchError';
}

type AnyFn = (options?: Record<string, unknown>) => Promise<unknown>;

/** Loads `bench/<file>` and its exported function `name`. */
async function benchFunction(file: string, name: string): Promise<AnyFn> {
  const path = resolve(import.meta.dirname, file);
  if (!existsSync(path)) throw new MissingBenchError(`bench/${file} does not exist yet`);
  const mod = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  if (typeof mod[name] === 'function') return mod[name] as AnyFn;
  throw new MissingBenchError(`bench/${file} does not export ${name}`);
}

/** Runs one section once; answers its raw result (shape owned by the area's module). */
export async function runSection(name: SectionName, ctx: SectionContext): Promise<unknown> {
  switch (name) {
    case 'seed':
      return seedSection(ctx);
    case 'ingest': {
      const fn = await benchFunction('ingest.bench.ts', 'runIngestBench');
      // posts: the demo's 24 per creator (24M at 1M creators), one pair when quick
      return fn({
        rows: ctx.creators,
        changed: Math.min(10_000, Math.max(100, Math.round(ctx.creators / 10))),
        posts: ctx.creators * 24,
        postsRepeats: ctx.quick ? 1 : 2,
      });
    }
    case 'export': {
      const fn = await benchFunction('export.bench.ts', 'runExportBench');
      const dir = join(ctx.workDir, `export-${ctx.creators}`);
      mkdirSync(dir, { recursive: true });
      return fn({ creators: ctx.creators, dir, runs: ctx.runs, log: ctx.log });
    }
    case 'webhooks': {
      const fn = await benchFunction('webhooks.bench.ts', 'webhooksBench');
      return fn({
        deliveries: ctx.smoke ? 200 : ctx.quick ? 500 : 20_000,
        latencySamples: ctx.smoke ? 10 : ctx.quick ? 20 : 200,
        ...(ctx.smoke ? { ingestSamples: 3 } : {}),
      });
    }
    case 'sync': {
      const fn = await benchFunction('sync.bench.ts', 'runSyncBench');
      const dir = join(ctx.workDir, `sync-${ctx.creators}`);
      return fn({ creators: ctx.creators, dir, runs: ctx.runs, log: ctx.log });
    }
    case 'sources': {
      // issue 19's figure is for 100,000 creators whatever the run's size; the smoke test uses a toy size
      const fn = await benchFunction('sources.bench.ts', 'runSourcesBench');
      return fn({ creators: ctx.smoke ? 2_000 : 100_000, dir: join(ctx.workDir, 'sources'), log: ctx.log });
    }
    case 'api': {
      const fn = await benchFunction('api.bench.ts', 'runApiBench');
      return fn({
        creators: ctx.creators,
        dir: join(ctx.workDir, `api-${ctx.creators}`),
        runs: ctx.runs,
        quick: ctx.quick,
        ...(ctx.smoke ? { seconds: SMOKE_WINDOW_S, concurrency: 10 } : {}),
        log: ctx.log,
      });
    }
    case 'verify': {
      const fn = await benchFunction('verify.bench.ts', 'runVerifyBench');
      return fn({
        creators: ctx.creators,
        dir: join(ctx.workDir, `verify-${ctx.creators}`),
        runs: ctx.runs,
        quick: ctx.quick,
        ...(ctx.smoke ? { samples: 10 } : {}),
        log: ctx.log,
      });
    }
    case 'search-scale': {
      // issue 14's curve: 1M, 3M and 10M creators (creators only), whatever the run's --creators; toy sizes in the smoke test
      const fn = await benchFunction('search-scale.bench.ts', 'runSearchScaleBench');
      // CDS_BENCH_SEARCH_SIZES (e.g. 1000000,10000000) picks the sizes of a full run: the 1M → 10M figures without 3M
      const chosen = process.env.CDS_BENCH_SEARCH_SIZES?.split(',').map(Number);
      return fn({
        sizes: ctx.smoke
          ? [2_000, 4_000]
          : ctx.quick
            ? [1_000_000]
            : chosen?.every((n) => Number.isInteger(n) && n > 0)
              ? chosen.sort((a, b) => a - b)
              : [1_000_000, 3_000_000, 10_000_000],
        dir: join(ctx.workDir, 'search-scale'),
        ...(ctx.smoke ? { samples: 10, seconds: SMOKE_WINDOW_S } : ctx.quick ? { samples: 100, seconds: 5 } : {}),
        log: ctx.log,
      });
    }
    case 'lookalikes': {
      // issue 26: recall@10 on the persona world of the run's size (50,000 at most: a demo seed above 200,000 is not
      // made here), its latency, and the ranking over that world replicated to a million creators (bench/lookalike-scale.ts)
      const fn = await benchFunction('lookalikes.bench.ts', 'benchLookalikes');
      const creators = personaWorld(ctx);
      return fn({
        creators,
        dir: ctx.workDir,
        samples: ctx.smoke ? 10 : ctx.quick ? 100 : 300,
        queries: ctx.smoke ? 20 : 600,
        alternatives: 0,
        scale: ctx.smoke ? 2 : Math.ceil(1_000_000 / creators),
        log: ctx.log,
      });
    }
    case 'overlap': {
      // issue 26: the sketch answer against the exact one on the persona world, and 10-creator overlaps before and
      // after growing a copy of it to a million creators with a sketch each (bench/overlap-scale.ts)
      const dbPath = join(ctx.workDir, `lookalikes-${personaWorld(ctx)}`, 'cds.duckdb');
      await ensureBenchStore(dbPath, personaWorld(ctx), ctx.log, 'overlap');
      const accuracy = await benchFunction('overlap.bench.ts', 'runOverlapBench');
      const scale = await benchFunction('overlap-scale.ts', 'runOverlapScale');
      return {
        ...((await accuracy({ dbPath, sets: ctx.smoke ? 3 : 60, requests: ctx.smoke ? 5 : 300 })) as object),
        scale: await scale({
          sourceDb: dbPath,
          dir: ctx.workDir,
          creators: ctx.smoke ? ctx.creators * 2 : 1_000_000,
          requests: ctx.smoke ? 5 : 300,
          // the grown store (about 16 GB at a million sketches) is kept for later runs; the smoke test's is removed
          keep: !ctx.smoke,
          log: ctx.log,
        }),
      };
    }
    case 'cluster': {
      const fn = await benchFunction('cluster.bench.ts', 'runClusterBench');
      return fn({
        creators: ctx.creators,
        dir: join(ctx.workDir, `cluster-${ctx.creators}`),
        quick: ctx.quick,
        ...(ctx.smoke ? SMOKE_CLUSTER : {}),
        log: ctx.log,
      });
    }
  }
}

/** The persona world the lookalikes and overlap sections measure: the run's size, at most 50,000 creators. */
function personaWorld(ctx: SectionContext): number {
  return Math.min(ctx.creators, 50_000);
}

/**
 * The throughput windows of the smoke test (api, search-scale, cluster), s. Every connection still answers at
 * least one request in a window, so each figure is made; the figures mean nothing at this size, and 1 s windows
 * cost the smoke test 11 s more CPU (114 s against 102 s measured, load average 6-9).
 */
const SMOKE_WINDOW_S = 0.25;

/** The cluster section at toy size: one replica, a few requests, one lag sample at a 1 s snapshot interval. */
const SMOKE_CLUSTER = {
  replicas: 1,
  seconds: SMOKE_WINDOW_S,
  concurrency: 4,
  lagSamples: 1,
  lagIntervals: [1],
  metaSamples: 20,
};

/** What the seed section measures: `cds seed --creators N` (seedDemoData) and the store it leaves. */
export interface SeedBenchResult {
  creators: number;
  seconds: number;
  store_bytes: number;
  /** Sequential write speed of the work folder's disk, measured in the same run (MB/s). */
  disk_write_mb_s: number;
  /** store_bytes written at disk speed: the floor for producing this store (s). */
  disk_floor_s: number;
  history_rows: number;
  posts: number;
  reused: boolean;
  /** A refit of the price model on the seeded store (bench/pricing.bench.ts); null without campaign prices or the module. */
  pricing?: Record<string, unknown> | null;
}

/**
 * Seeds N creators (full history) into bench/work/seed-N once and reuses it on
 * later runs (its figures are kept beside it in seed.json).
 */
async function seedSection(ctx: SectionContext): Promise<SeedBenchResult> {
  const seeded = await seedOrReuse(ctx);
  return { ...seeded, pricing: await pricingFit(join(ctx.workDir, `seed-${ctx.creators}`, 'cds.duckdb'), ctx) };
}

/** The price model's refit time on the seeded store (docs/pricing.md); null when it cannot run (the report says so). */
async function pricingFit(dbPath: string, ctx: SectionContext): Promise<Record<string, unknown> | null> {
  try {
    const fn = await benchFunction('pricing.bench.ts', 'runPricingBench');
    const r = (await fn({ dbPath })) as Record<string, unknown> | null;
    if (r)
      ctx.log(
        `seed: pricing refit ${Number(r['seconds']).toFixed(1)} s (${String(r['observations'])} campaign prices)`,
      );
    return r;
  } catch (error) {
    ctx.log(`seed: pricing refit failed: ${(error as Error).message}`);
    return null;
  }
}

async function seedOrReuse(ctx: SectionContext): Promise<SeedBenchResult> {
  const dir = join(ctx.workDir, `seed-${ctx.creators}`);
  const metaPath = join(dir, 'seed.json');
  const diskMbS = measureDiskWrite(ctx.workDir, ctx.quick ? 32 : 256);
  if (existsSync(metaPath)) {
    const saved = JSON.parse(readFileSync(metaPath, 'utf8')) as SeedBenchResult;
    ctx.log(`seed: reusing ${dir} (seeded in ${saved.seconds.toFixed(1)} s)`);
    return { ...saved, disk_write_mb_s: diskMbS, disk_floor_s: saved.store_bytes / 1_048_576 / diskMbS, reused: true };
  }
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const dbPath = join(dir, 'cds.duckdb');
  const store = await Store.open(dbPath);
  let seconds: number;
  let history = 0;
  let posts = 0;
  try {
    const account = await ensureDemoAccount(store);
    const started = performance.now();
    const result = await seedDemoData(store, {
      creators: ctx.creators,
      seed: 42,
      asOf: '2026-11-21',
      demoAccountId: account.account_id,
      onProgress: ctx.quick ? undefined : (step, done, total) => ctx.log(`seed: ${step} ${done}/${total}`),
    });
    await store.run('CHECKPOINT');
    seconds = (performance.now() - started) / 1000;
    history = result.historyRows;
    posts = result.posts;
  } finally {
    await store.close();
  }
  const bytes = fileBytes(dbPath) + fileBytes(`${dbPath}.wal`);
  const out: SeedBenchResult = {
    creators: ctx.creators,
    seconds,
    store_bytes: bytes,
    disk_write_mb_s: diskMbS,
    disk_floor_s: bytes / 1_048_576 / diskMbS,
    history_rows: history,
    posts,
    reused: false,
  };
  writeFileSync(metaPath, JSON.stringify(out, null, 2));
  ctx.log(`seed: ${ctx.creators} creators in ${seconds.toFixed(1)} s, store ${(bytes / 1e9).toFixed(2)} GB`);
  return out;
}

function fileBytes(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

/** Writes `mb` MB in 8 MB chunks and fsyncs: the disk's sequential write speed, MB/s. */
function measureDiskWrite(dir: string, mb: number): number {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `.disk-probe-${process.pid}`);
  const chunk = Buffer.alloc(8 * 1_048_576, 7);
  const started = performance.now();
  const fd = openSync(path, 'w');
  try {
    for (let written = 0; written < mb; written += 8) writeSync(fd, chunk);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
    rmSync(path, { force: true });
  }
  return mb / ((performance.now() - started) / 1000);
}
