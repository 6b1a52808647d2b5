// Verify bench (issue 5): one creator's check (`POST /v1/verify`) over HTTP and
// the same model call made directly, p50/p99 on a sample of creators; the full
// precompute (every creator's score, as at load) timed on the same store; and
// the model's ROC AUC on that store's labels. `npm run bench` calls
// runVerifyBench; standalone: `node bin/run-ts.mjs bench/verify.bench.ts [--creators N] [--dir DIR]`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { testConfig } from '../config/config.js';
import { createLogger } from '../config/logger.js';
import { evaluate } from '../data/authenticity/evaluation.js';
import { selectDemoLabelled } from '../data/authenticity/evaluation.queries.js';
import { activeModel } from '../data/authenticity/model-registry.queries.js';
import { recomputeAuthenticity } from '../data/authenticity/precompute.js';
import { scoreCreator } from '../data/authenticity/verification.queries.js';
import { createKey } from '../data/keys/key.service.js';
import { Store } from '../data/store.js';
import { createApp } from '../server/app.js';
import { ensureBenchStore } from './bench-store.js';
import { percentile } from './stats.js';

export interface VerifyBenchOptions {
  creators?: number;
  /** Folder of the bench store; reused when it holds one, else copied from a sibling seed-N store, else seeded. */
  dir?: string;
  runs?: number;
  quick?: boolean;
  /** Creators checked per measurement (default 300; quick 40). */
  samples?: number;
  log?: (line: string) => void;
}

export interface Latency {
  p50_ms: number;
  p99_ms: number;
  n: number;
}

export interface VerifyBenchResult {
  creators: number;
  /** The model call for one creator (features from current data + score), no HTTP, nothing stored. */
  direct: Latency;
  /** POST /v1/verify end to end: auth, rate limit, model, storing the verification. */
  http: Latency;
  /** http p50 / direct p50. */
  p50_ratio: number;
  /** Recomputing every creator's features, peer statistics and score (what a full load runs). */
  precompute_all_seconds: number;
  /** ROC AUC of the scores on the store's ground-truth labels. */
  auc: number | null;
}

/** Measures verify latency and the full precompute on a demo store of `creators`. */
export async function runVerifyBench(options: VerifyBenchOptions = {}): Promise<VerifyBenchResult> {
  const creators = options.creators ?? 1_000_000;
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const samples = options.samples ?? (options.quick ? 40 : 300);
  const dir = resolve(options.dir ?? join('bench', 'work', `verify-${creators}`));
  const config = testConfig(dir, { CDS_LOG_LEVEL: 'silent' });
  await ensureBenchStore(config.dbPath, creators, log, 'verify');
  const store = await Store.open(config.dbPath, { poolSize: 4 });
  const servers: Server[] = [];
  try {
    const started = performance.now();
    await store.transaction((tx) => recomputeAuthenticity(tx, 'all'));
    const precompute = (performance.now() - started) / 1000;
    log(`verify: precompute of ${creators} creators in ${precompute.toFixed(1)} s`);
    const sample = await store.all<{ creator_id: number; handle: string; platform: string }>(
      'SELECT creator_id, handle, platform FROM creators ORDER BY hash(creator_id) LIMIT ?',
      [samples],
    );
    const direct: number[] = [];
    const model = await activeModel(store);
    for (const c of sample) direct.push(await timed(() => scoreCreator(store, c.creator_id, model)));
    const app = createApp({ store, config, logger: createLogger(config) });
    const server = createServer(app.callback());
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/verify`;
    const key = (await createKey(store, { account: 'bench-verify', plan: 'enterprise', scopes: ['verify'] })).key;
    const http: number[] = [];
    for (const c of sample) http.push(await timed(() => post(url, key, { handle: c.handle, platform: c.platform })));
    const result: VerifyBenchResult = {
      creators,
      direct: latency(direct),
      http: latency(http),
      p50_ratio: 0,
      precompute_all_seconds: round(precompute),
      auc: evaluate(await selectDemoLabelled(store)).auc,
    };
    result.p50_ratio = round(result.http.p50_ms / result.direct.p50_ms);
    log(
      `verify: direct p50 ${result.direct.p50_ms} ms p99 ${result.direct.p99_ms} ms; http p50 ${result.http.p50_ms} ms p99 ${result.http.p99_ms} ms`,
    );
    return result;
  } finally {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise<void>((r) => s.close(() => r()));
    }
    await store.close();
  }
}

async function post(url: string, key: string, body: unknown): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`POST /v1/verify answered ${res.status}`);
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

function latency(times: number[]): Latency {
  const at = (q: number): number => percentile(times, q, 0);
  return { p50_ms: round(at(0.5)), p99_ms: round(at(0.99)), n: times.length };
}

const round = (x: number): number => Math.round(x * 100) / 100;

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({
    options: { creators: { type: 'string' }, dir: { type: 'string' }, quick: { type: 'boolean' } },
  });
  const result = await runVerifyBench({
    creators: values.creators ? Number(values.creators) : 50_000,
    dir: values.dir,
    quick: values.quick === true,
  });
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
