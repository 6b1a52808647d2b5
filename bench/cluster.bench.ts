// Cluster bench: what running as a cluster costs and gives, on the bench store.
// Mixed read requests/s on 1..n API replicas (round-robin) against the embedded
// single process on the same store; snapshot publish and replica switch times
// against a plain `cp` of the same file; change-to-visible lag across replicas
// at two snapshot intervals; and the PostgreSQL round trips every request pays
// (GET /v1/meta: auth and rate limit, no data). `npm run bench` calls runClusterBench.
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dataVersion } from '../data/creators/creator-search.queries.js';
import { SearchProjection } from '../data/creators/search-projection.js';
import { createKey } from '../data/keys/key.service.js';
import type { StateDb } from '../data/state/state-db.js';
import { PgState } from '../data/state/pg-state.js';
import { Store } from '../data/store.js';
import { spawnProcess, startLocalPostgres, type ClusterEnv, type ClusterProcess } from '../test/helpers/cluster-kit.js';
import { freePort, serviceEnv, sleep, startServiceProcess } from '../test/helpers/drill-kit.js';
import { ensureBenchStore } from './bench-store.js';
import {
  measureLag,
  snapshotFigures,
  type LagCreator,
  type LagResult,
  type SnapshotFigures,
} from './cluster-figures.js';
import {
  closedLoop,
  mixedRequest,
  RoundRobin,
  sequential,
  type Latency,
  type LoadResult,
  type ProfileTarget,
} from './cluster-load.js';

export interface ClusterBenchOptions {
  creators?: number;
  /** Folder of the cluster bench (its base store is copied from a sibling seed-N store, else seeded). */
  dir?: string;
  quick?: boolean;
  /** Seconds per throughput measurement (default 10; quick 3). */
  seconds?: number;
  concurrency?: number;
  /** Most API replicas measured (1..replicas; default 3). */
  replicas?: number;
  /** Ingests per snapshot interval for the lag (default 10; quick 3). */
  lagSamples?: number;
  /** Snapshot intervals the lag is measured at, s (default 20, the product default, then 2). */
  lagIntervals?: number[];
  /** GET /v1/meta samples per process (default 300). */
  metaSamples?: number;
  log?: (line: string) => void;
}

export interface ClusterBenchResult {
  creators: number;
  /** Cores of this machine: every process of the run shares them. */
  cores: number;
  concurrency: number;
  seconds: number;
  throughput: {
    /** The embedded single process (`cds start`, no PostgreSQL) on a copy of the same store. */
    embedded: LoadResult;
    /** `replicas[i]`: i + 1 API replicas, requests round-robin across them. */
    replicas: LoadResult[];
  };
  snapshot: SnapshotFigures;
  lag: LagResult[];
  /** GET /v1/meta, one client: auth + rate limit and no data; in-process state vs PostgreSQL round trips. */
  meta: { embedded: Latency; replica: Latency };
}

/** Enterprise accounts the load is spread over: each allows 1,200 requests/min, so one account would cap the run. */
const ACCOUNTS = 48;

interface Ctx {
  creators: number;
  run: string;
  base: string;
  concurrency: number;
  seconds: number;
  replicas: number;
  lagSamples: number;
  lagIntervals: number[];
  metaSamples: number;
  profiles: ProfileTarget[];
  lagCreator: LagCreator;
  /** Request numbers never repeat across measurements, so no process's cache sees a search twice. */
  next: () => number;
  log: (line: string) => void;
}

export async function runClusterBench(options: ClusterBenchOptions = {}): Promise<ClusterBenchResult> {
  const creators = options.creators ?? 1_000_000;
  const quick = options.quick ?? false;
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const dir = resolve(options.dir ?? join('bench', 'work', `cluster-${creators}`));
  const base = join(dir, 'cds.duckdb');
  await ensureBenchStore(base, creators, log, 'cluster');
  const { profiles, lagCreator } = await prepareBase(base, log);
  const run = join(dir, 'run');
  rmSync(run, { recursive: true, force: true });
  mkdirSync(run, { recursive: true });
  let seq = 0;
  const ctx: Ctx = {
    creators,
    run,
    base,
    concurrency: options.concurrency ?? 32,
    seconds: options.seconds ?? (quick ? 3 : 10),
    replicas: options.replicas ?? 3,
    lagSamples: options.lagSamples ?? (quick ? 3 : 10),
    lagIntervals: options.lagIntervals ?? [20, 2],
    metaSamples: options.metaSamples ?? 300,
    profiles,
    lagCreator,
    next: () => seq++,
    log,
  };
  try {
    const embedded = await measureEmbedded(ctx);
    const cluster = await measureCluster(ctx);
    return {
      creators,
      cores: cpus().length,
      concurrency: ctx.concurrency,
      seconds: ctx.seconds,
      throughput: { embedded: embedded.load, replicas: cluster.loads },
      snapshot: cluster.snapshot,
      lag: cluster.lag,
      meta: { embedded: embedded.meta, replica: cluster.meta },
    };
  } finally {
    removeStores(run);
  }
}

/**
 * Makes the base store's search projection current (as a running service would
 * have it) and samples the creators the workload reads; the store is then only copied.
 */
async function prepareBase(
  base: string,
  log: (line: string) => void,
): Promise<{ profiles: ProfileTarget[]; lagCreator: LagCreator }> {
  const store = await Store.open(base);
  try {
    const built = await store.one<{ v: string }>(
      'SELECT data_version AS v FROM creator_search_projection_state WHERE id = 1',
    );
    if (built?.v !== (await dataVersion(store))) {
      log('cluster: building the search projection of the base store');
      await new SearchProjection(store).rebuild();
    }
    const profiles = await store.all<{ handle: string; platform: string }>(
      'SELECT handle, platform FROM creators USING SAMPLE 20000 ROWS (reservoir, 11)',
    );
    const lagCreator = await store.one<{ handle: string; platform: string; niche: string; followers: number }>(
      'SELECT handle, platform, niche, followers FROM creators ORDER BY creator_id LIMIT 1',
    );
    if (!lagCreator) throw new Error('the bench store has no creators');
    await store.run('CHECKPOINT');
    return { profiles, lagCreator };
  } finally {
    await store.close();
  }
}

/** `cds start` with no PostgreSQL on a copy of the base store: the reference for requests/s and /v1/meta. */
async function measureEmbedded(ctx: Ctx): Promise<{ load: LoadResult; meta: Latency }> {
  const dataDir = join(ctx.run, 'embedded');
  mkdirSync(dataDir, { recursive: true });
  copyFileSync(ctx.base, join(dataDir, 'cds.duckdb'));
  const keys = await withStore(join(dataDir, 'cds.duckdb'), (store) => benchKeys(store));
  const env = serviceEnv(dataDir, await freePort(), { CDS_DEMO: '0', CDS_LOG_LEVEL: 'info' });
  delete env['CDS_DUCKDB_THREADS']; // as the replicas run: DuckDB's default threads
  const service = await startServiceProcess(env, join(ctx.run, 'logs', 'embedded.log'), 600_000);
  const client = new RoundRobin([service.url], keys, ctx.concurrency);
  try {
    const meta = await sequential(client, '/v1/meta', ctx.metaSamples, 30);
    ctx.log(`cluster: embedded GET /v1/meta p50 ${meta.p50_ms} ms`);
    const load = await throughput(ctx, client, 'embedded single process');
    return { load, meta };
  } finally {
    client.close();
    await service.stop();
  }
}

/** Removes the run's store copies and snapshots (gigabytes at 1M); its logs stay for a look. */
function removeStores(run: string): void {
  for (const entry of readdirSync(run))
    if (entry !== 'logs') rmSync(join(run, entry), { recursive: true, force: true });
}

async function withStore<T>(path: string, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await Store.open(path);
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

async function benchKeys(state: StateDb): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < ACCOUNTS; i++)
    keys.push((await createKey(state, { account: `bench-cluster-${i}`, plan: 'enterprise', scopes: ['read'] })).key);
  return keys;
}

/** A short unmeasured warm-up (cold buffers, new connections), then the measured closed loop. */
async function throughput(ctx: Ctx, client: RoundRobin, what: string): Promise<LoadResult> {
  const path = (seq: number): string => mixedRequest(seq, ctx.profiles);
  await closedLoop(client, ctx.concurrency, Math.min(2, ctx.seconds), ctx.next, path);
  const result = await closedLoop(client, ctx.concurrency, ctx.seconds, ctx.next, path);
  ctx.log(
    `cluster: ${what}: ${result.rps} req/s, p50 ${result.latency.p50_ms} ms, p99 ${result.latency.p99_ms} ms` +
      `${result.errors > 0 ? `, ${result.errors} errors` : ''}`,
  );
  return result;
}

interface Cluster {
  pg: { url: string; stop(): Promise<void> };
  env: ClusterEnv;
  writerDir: string;
  writer: ClusterProcess | null;
  apis: ClusterProcess[];
}

/** PostgreSQL, a writer on a copy of the base store, then 1..n replicas; every figure of the cluster side. */
async function measureCluster(
  ctx: Ctx,
): Promise<{ loads: LoadResult[]; meta: Latency; snapshot: SnapshotFigures; lag: LagResult[] }> {
  const writerDir = join(ctx.run, 'writer');
  mkdirSync(writerDir, { recursive: true });
  copyFileSync(ctx.base, join(writerDir, 'cds.duckdb'));
  // under the system temp folder: as root, PostgreSQL runs as another user, who must reach its folder
  const pgDir = join(tmpdir(), `cds-bench-pg-${randomBytes(6).toString('hex')}`);
  const pg = await startLocalPostgres(pgDir, { fresh: true });
  const c: Cluster = {
    pg,
    writerDir,
    writer: null,
    apis: [],
    env: {
      databaseUrl: pg.url,
      sharedDir: join(ctx.run, 'shared'),
      logDir: join(ctx.run, 'logs'),
      extra: { CDS_DEMO: '0' },
    },
  };
  try {
    await startWriter(ctx, c, ctx.lagIntervals[0] ?? 20);
    const keys = await withPg(pg.url, (state) => benchKeys(state));
    const loads: LoadResult[] = [];
    let meta: Latency | null = null;
    for (let n = 1; n <= ctx.replicas; n++) {
      c.apis.push(
        await spawnProcess(c.env, {
          name: `api-${n}`,
          roles: 'api',
          dataDir: join(ctx.run, `api-${n}`),
          port: await freePort(),
        }),
      );
      const client = new RoundRobin(
        c.apis.map((a) => a.url!),
        keys,
        ctx.concurrency,
      );
      try {
        if (n === 1) {
          meta = await sequential(client, '/v1/meta', ctx.metaSamples, 30);
          ctx.log(`cluster: replica GET /v1/meta p50 ${meta.p50_ms} ms`);
        }
        loads.push(await throughput(ctx, client, `${n} API replica(s)`));
      } finally {
        client.close();
      }
    }
    const lag: LagResult[] = [];
    for (const [i, interval] of ctx.lagIntervals.entries()) {
      if (i > 0) await startWriter(ctx, c, interval);
      lag.push(
        await measureLag(
          {
            run: ctx.run,
            writerDir,
            databaseUrl: pg.url,
            apis: c.apis.map((a) => a.url!),
            keys,
            samples: ctx.lagSamples,
            creator: ctx.lagCreator,
            log: ctx.log,
          },
          interval,
        ),
      );
    }
    const snapshot = await snapshotFigures({
      logDir: c.env.logDir,
      sharedDir: c.env.sharedDir,
      databaseUrl: pg.url,
      writer: 'writer',
      replicas: c.apis.map((a) => a.name),
      log: ctx.log,
    });
    return { loads, meta: meta!, snapshot, lag };
  } finally {
    for (const a of c.apis) await a.stop().catch(() => null);
    await c.writer?.stop().catch(() => null);
    await pg.stop().catch(() => undefined);
    rmSync(pgDir, { recursive: true, force: true });
  }
}

async function withPg<T>(url: string, fn: (state: PgState) => Promise<T>): Promise<T> {
  const state = await PgState.open(url, { max: 2, applicationName: 'cds bench' });
  try {
    return await fn(state);
  } finally {
    await state.close();
  }
}

/** (Re)starts the writer with a snapshot interval; answers once it is elected and its admin channel listens. */
async function startWriter(ctx: Ctx, c: Cluster, intervalS: number): Promise<void> {
  await c.writer?.stop();
  const env = { ...c.env, extra: { ...c.env.extra, CDS_SNAPSHOT_INTERVAL_SECONDS: String(intervalS) } };
  c.writer = await spawnProcess(env, { name: 'writer', roles: 'writer', dataDir: c.writerDir });
  const socket = join(c.writerDir, 'admin.sock');
  const until = Date.now() + 600_000;
  while (!(await listens(socket))) {
    if (!c.writer.alive() || Date.now() > until)
      throw new Error(`the writer did not start; see ${join(c.env.logDir, 'writer.log')}`);
    await sleep(200);
  }
  ctx.log(`cluster: writer active, snapshot interval ${intervalS} s`);
}

function listens(socket: string): Promise<boolean> {
  if (!existsSync(socket)) return Promise.resolve(false);
  return new Promise((r) => {
    const s = connect(socket, () => {
      s.destroy();
      r(true);
    });
    s.on('error', () => r(false));
  });
}
