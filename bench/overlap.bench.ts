// Audience overlap (docs/audience-overlap.md) on a seeded store: the accuracy of the sketch answer
// against the exact answer from the full samples, for sets of 2, 5 and 10 creators, and the latency of
// a 10-creator overlap through the service (handle lookups, the sketch read and the estimate).
// `node bin/run-ts.mjs bench/overlap.bench.ts <store.duckdb>` on any seeded store, or
// `node bin/run-ts.mjs bench/overlap.bench.ts --creators 50000` to seed a world first.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prng } from '../core/prng.js';
import { SKETCH_K } from '../data/audience-overlap/follower-sketch.queries.js';
import { estimateOverlap } from '../data/audience-overlap/overlap-estimator.js';
import { audienceOverlap } from '../data/audience-overlap/overlap.service.js';
import type { CreatorItem } from '../data/creators/creator-item.js';
import { ensureDemoAccount } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import { Store } from '../data/store.js';

/** The figures of one run. Errors are in percentage points of unique_pct. */
export interface OverlapBenchResult {
  creators: number;
  sampled_creators: number;
  sample_ids: number;
  /** Per set size: sets drawn, the share answered from partial sketches, the largest and 95th-percentile error of the set's unique_pct, the largest error of a creator's. */
  accuracy: Array<{
    size: number;
    sets: number;
    sketched_pct: number;
    max_error: number;
    p95_error: number;
    max_creator_error: number;
    within_margin_pct: number;
  }>;
  /** 10-creator overlaps through the service, milliseconds. */
  latency_ms: { requests: number; p50: number; p99: number; max: number };
  /** The estimator alone on generated samples of 1,500–20,000 ids (every sketch partial): see `syntheticAccuracy`. */
  synthetic: SyntheticAccuracy[];
}

/** Errors in percentage points against the exact answer from the full samples. */
export interface SyntheticAccuracy {
  size: number;
  sets: number;
  max_error: number;
  p95_error: number;
  max_creator_error: number;
  within_margin_pct: number;
}

/** A creator with a follower sample: what a set is drawn from (its platform and niche) and named by. */
type Sampled = Pick<CreatorItem, 'handle' | 'platform' | 'niche' | 'followers'> & { creator_id: number };

/** Measures overlap accuracy and latency on the store at `dbPath` (it must hold follower samples). */
export async function runOverlapBench(options: {
  dbPath: string;
  sets?: number;
  requests?: number;
}): Promise<OverlapBenchResult> {
  const store = await Store.open(options.dbPath);
  try {
    const sampled = await store.all<Sampled>(`SELECT c.creator_id, c.handle, c.platform, c.niche, c.followers
      FROM creators c SEMI JOIN follower_sketches s ON s.creator_id = c.creator_id ORDER BY c.creator_id`);
    if (sampled.length < 10) throw new Error('the store has fewer than 10 creators with a follower sample');
    const counts = await store.one<{ creators: number; ids: number }>(
      'SELECT (SELECT count(*) FROM creators) AS creators, (SELECT count(*) FROM follower_samples) AS ids',
    );
    const rand = prng(26);
    const accuracy = [];
    for (const size of [2, 5, 10]) accuracy.push(await measureAccuracy(store, sampled, size, options.sets ?? 60, rand));
    return {
      creators: counts?.creators ?? 0,
      sampled_creators: sampled.length,
      sample_ids: counts?.ids ?? 0,
      accuracy,
      latency_ms: await measureLatency(store, sampled, options.requests ?? 300, rand),
      synthetic: [2, 5, 10].map((size) => syntheticAccuracy(size, options.sets ?? 60, prng(size))),
    };
  } finally {
    await store.close();
  }
}

/** `size` distinct creators, two sets in three from one platform and niche (where overlaps are). */
function draw(sampled: readonly Sampled[], size: number, rand: () => number, alike: boolean): Sampled[] {
  const first = sampled[Math.floor(rand() * sampled.length)] as Sampled;
  const near = sampled.filter((c) => c !== first && c.platform === first.platform && c.niche === first.niche);
  const far = sampled.filter((c) => c !== first && !near.includes(c));
  const picked = [first];
  while (picked.length < size) {
    const from = alike && near.length > 0 ? near : far;
    picked.push(from.splice(Math.floor(rand() * from.length), 1)[0] as Sampled);
  }
  return picked;
}

async function measureAccuracy(
  store: Store,
  sampled: readonly Sampled[],
  size: number,
  sets: number,
  rand: () => number,
): Promise<OverlapBenchResult['accuracy'][number]> {
  const errors: number[] = [];
  let creatorMax = 0;
  let sketched = 0;
  let members = 0;
  let inside = 0;
  for (let i = 0; i < sets; i++) {
    const set = draw(sampled, size, rand, i % 3 !== 0);
    const answer = await audienceOverlap(
      store,
      set.map((c) => ({ handle: c.handle, platform: c.platform })),
    );
    const truth = await exactAnswer(store, set);
    errors.push(Math.abs(answer.unique_pct - truth.uniquePct));
    answer.creators.forEach((c, j) => {
      const error = Math.abs(c.unique_pct - (truth.creatorPct[j] ?? 0));
      creatorMax = Math.max(creatorMax, error);
      members++;
      if (error <= answer.error_margin_pct + 0.01) inside++;
    });
    if (answer.method === 'kmv_sketch') sketched++;
  }
  errors.sort((a, b) => a - b);
  const round = (x: number): number => Math.round(x * 100) / 100;
  return {
    size,
    sets,
    sketched_pct: round((100 * sketched) / sets),
    max_error: round(errors.at(-1) ?? 0),
    p95_error: round(errors[Math.min(errors.length - 1, Math.floor(errors.length * 0.95))] ?? 0),
    max_creator_error: round(creatorMax),
    within_margin_pct: round((100 * inside) / members),
  };
}

/** unique_pct and each creator's unique share from the full samples, counted in SQL (docs/audience-overlap.md). */
async function exactAnswer(
  store: Store,
  set: readonly Sampled[],
): Promise<{ uniquePct: number; creatorPct: number[] }> {
  const ids = set.map((c) => c.creator_id);
  const rows = await store.all<{ creator_id: number; alone: number; weight: number; n: number }>(
    `WITH s AS (SELECT creator_id, follower_id FROM follower_samples WHERE creator_id IN (${ids.map(() => '?').join(', ')})),
      c AS (SELECT follower_id, count(*) AS holders FROM s GROUP BY follower_id)
    SELECT s.creator_id, count(*) FILTER (WHERE holders = 1) AS alone, sum(1.0 / holders) AS weight, count(*) AS n
    FROM s JOIN c USING (follower_id) GROUP BY s.creator_id`,
    ids,
  );
  const byId = new Map(rows.map((r) => [r.creator_id, r]));
  let unique = 0;
  const creatorPct = set.map((c) => {
    const r = byId.get(c.creator_id);
    if (!r) return 0;
    unique += (c.followers * r.weight) / r.n;
    return (100 * r.alone) / r.n;
  });
  return { uniquePct: (100 * unique) / set.reduce((s, c) => s + c.followers, 0), creatorPct };
}

async function measureLatency(
  store: Store,
  sampled: readonly Sampled[],
  requests: number,
  rand: () => number,
): Promise<OverlapBenchResult['latency_ms']> {
  const times: number[] = [];
  for (let i = 0; i < requests; i++) {
    const refs = draw(sampled, 10, rand, i % 2 === 0).map((c) => ({ handle: c.handle, platform: c.platform }));
    const started = performance.now();
    await audienceOverlap(store, refs);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const at = (q: number): number =>
    Math.round((times[Math.min(times.length - 1, Math.floor(times.length * q))] ?? 0) * 10) / 10;
  return { requests, p50: at(0.5), p99: at(0.99), max: at(1) };
}

/** A random 53-bit hash (two draws: one gives 32 bits). */
const hashOf = (rand: () => number): number => Math.floor(rand() * 2 ** 32) * 2 ** 21 + Math.floor(rand() * 2 ** 21);

/**
 * The estimator on `sets` generated sets of `size` samples of 1,500–20,000 ids, each drawing up to
 * 90 % of its ids from one of three communities (2,000, 8,000 or 30,000 ids) and the rest of its own,
 * against the exact answer counted from the full samples.
 */
export function syntheticAccuracy(size: number, sets: number, rand: () => number): SyntheticAccuracy {
  const errors: number[] = [];
  let creatorMax = 0;
  let members = 0;
  let inside = 0;
  for (let t = 0; t < sets; t++) {
    const communities = [2_000, 8_000, 30_000].map((n) => [...new Set(Array.from({ length: n }, () => hashOf(rand)))]);
    const samples = Array.from({ length: size }, () => {
      const n = 1_500 + Math.floor(rand() * 18_500);
      const community = communities[Math.floor(rand() * 3)] as number[];
      const shared = Math.min(community.length, Math.floor(n * rand() * 0.9));
      const ids = new Set<number>();
      while (ids.size < shared) ids.add(community[Math.floor(rand() * community.length)] as number);
      while (ids.size < n) ids.add(hashOf(rand));
      return { followers: n * (1 + Math.floor(rand() * 500)), ids: [...ids].sort((a, b) => a - b) };
    });
    const estimate = estimateOverlap(
      samples.map((s) => ({
        followers: s.followers,
        sketch: { sampleSize: s.ids.length, hashes: s.ids.slice(0, SKETCH_K) },
      })),
    );
    const holders = new Map<number, number>();
    for (const s of samples) for (const id of s.ids) holders.set(id, (holders.get(id) ?? 0) + 1);
    let unique = 0;
    samples.forEach((s, i) => {
      let alone = 0;
      let weight = 0;
      for (const id of s.ids) {
        const c = holders.get(id) ?? 1;
        if (c === 1) alone++;
        weight += 1 / c;
      }
      unique += (s.followers * weight) / s.ids.length;
      const error = 100 * Math.abs((estimate.uniqueShares[i] ?? 0) - alone / s.ids.length);
      creatorMax = Math.max(creatorMax, error);
      members++;
      if (error <= 100 * estimate.margin) inside++;
    });
    const total = samples.reduce((a, s) => a + s.followers, 0);
    errors.push((100 * Math.abs(estimate.uniqueFollowers - unique)) / total);
  }
  errors.sort((a, b) => a - b);
  const round = (x: number): number => Math.round(x * 100) / 100;
  return {
    size,
    sets,
    max_error: round(errors.at(-1) ?? 0),
    p95_error: round(errors[Math.min(errors.length - 1, Math.floor(errors.length * 0.95))] ?? 0),
    max_creator_error: round(creatorMax),
    within_margin_pct: round((100 * inside) / members),
  };
}

/** Seeds a demo world of `creators` into a temporary store, runs the bench on it and removes it. */
async function onNewWorld(creators: number): Promise<OverlapBenchResult & { seed_s: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'cds-overlap-'));
  const dbPath = join(dir, 'cds.duckdb');
  try {
    const store = await Store.open(dbPath);
    const account = await ensureDemoAccount(store);
    const seeded = await seedDemoData(store, {
      creators,
      seed: 42,
      asOf: new Date().toISOString().slice(0, 10),
      demoAccountId: account.account_id,
    });
    await store.close();
    return { seed_s: Math.round(seeded.seconds * 10) / 10, ...(await runOverlapBench({ dbPath })) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('overlap.bench.ts')) {
  const flag = process.argv.indexOf('--creators');
  const creators = flag > 0 ? Number(process.argv[flag + 1]) : null;
  const path = process.argv[2];
  if (creators) console.log(JSON.stringify(await onNewWorld(creators), null, 2));
  else if (path) console.log(JSON.stringify(await runOverlapBench({ dbPath: path }), null, 2));
  else console.error('usage: run-ts bench/overlap.bench.ts <store.duckdb> | --creators N');
}
