// Audience overlap at a million creators without seeding a million (docs/audience-overlap.md,
// "Cost, measured"): a copy of a seeded demo store is grown to `creators` creators by copying its
// creators with new ids and handles (no history, no posts, no samples), and every creator gets a
// sketch — one of the demo's real sketches, taken in turn — so the store holds a million sketches
// of up to 2,048 hashes (about 16 GB), as a world where every creator has a follower sample would.
// The same 10-creator overlaps are then timed through the service before and after, as the API
// answers them (the handles and follower counts from the store's search index, built or opened
// from its files beside the store), with their phases: the handle lookups, the sketch read and the
// estimate; and beside them the bare sketch read (the one statement a request cannot do without)
// and the handle lookups in the store that the index replaces.
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { prng } from '../core/prng.js';
import { resolveHandle, resolveIndexedHandle } from '../data/creators/creator-profile.service.js';
import { CreatorSearchService } from '../data/creators/creator-search.service.js';
import { selectSketchHashes } from '../data/audience-overlap/follower-sketch.queries.js';
import { estimateOverlap } from '../data/audience-overlap/overlap-estimator.js';
import { audienceOverlap, readSketches } from '../data/audience-overlap/overlap.service.js';
import { sketchSlotsOf } from '../data/audience-overlap/sketch-slots.js';
import { Store } from '../data/store.js';
import { percentile } from './stats.js';

/**
 * One size's figures: whole requests (wall and CPU), the median of each phase (a second run over
 * the request's set, so its sketches are read warm), and the bare sketch read's p50 / p99 (the limit:
 * a request is that statement and work in memory; read for another set drawn the same way, as cold
 * as the request's), milliseconds.
 */
export interface OverlapSizeFigures {
  creators: number;
  sketches: number;
  requests: number;
  p50_ms: number;
  p99_ms: number;
  cpu_p50_ms: number;
  cpu_p99_ms: number;
  bare_p50_ms: number;
  bare_p99_ms: number;
  /** The request's p99 against the bare read's, measured in the same run (1.0: as fast as the bare read). */
  bare_ratio: number;
  phases_p50_ms: { lookups: number; sketches: number; estimate: number; store_lookups: number };
  /** Seconds to build the search index, or to open it from its files (the handles' source). */
  index_s: number;
  /** Seconds to fill the sketch slots beside the store (once per store: 0 when a marker says they were filled). */
  slots_fill_s: number;
}

export interface OverlapScaleResult {
  seeded: OverlapSizeFigures;
  scaled: OverlapSizeFigures;
  /** p99 at the scaled size ÷ at the seeded size. */
  p99_ratio: number;
  build_s: number;
  store_gb: number;
}

interface Ref extends Record<string, unknown> {
  creator_id: number;
  handle: string;
  platform: string;
}

/**
 * Grows a copy of `sourceDb` to `creators` creators, each with a sketch, under `dir`
 * (kept for later runs unless `keep` is false), and times 10-creator overlaps on the
 * source store and on the grown one.
 */
export async function runOverlapScale(o: {
  sourceDb: string;
  dir: string;
  creators: number;
  requests: number;
  keep?: boolean;
  log: (line: string) => void;
}): Promise<OverlapScaleResult> {
  const seeded = await measureStore(o.sourceDb, o.requests, true);
  o.log(
    `overlap: ${seeded.creators} creators, ${seeded.sketches} sketches: p50 ${seeded.p50_ms} ms, p99 ${seeded.p99_ms} ms`,
  );
  const dbPath = join(o.dir, `overlap-${o.creators}`, 'cds.duckdb');
  const started = performance.now();
  await grow(o.sourceDb, dbPath, o.creators, o.log);
  const buildS = (performance.now() - started) / 1000;
  try {
    const scaled = await measureStore(dbPath, o.requests, false);
    o.log(
      `overlap: ${scaled.creators} creators, ${scaled.sketches} sketches: p50 ${scaled.p50_ms} ms, p99 ${scaled.p99_ms} ms`,
    );
    return {
      seeded,
      scaled,
      p99_ratio: round(scaled.p99_ms / seeded.p99_ms),
      build_s: round(buildS),
      store_gb: round(statSync(dbPath).size / 1e9),
    };
  } finally {
    if (o.keep === false) rmSync(join(o.dir, `overlap-${o.creators}`), { recursive: true, force: true });
  }
}

/** Copies the source store and grows it to `creators` creators with a sketch each (once: a marker file says it is done). */
async function grow(sourceDb: string, dbPath: string, creators: number, log: (line: string) => void): Promise<void> {
  const done = `${dbPath}.grown`;
  if (existsSync(done)) return;
  rmSync(join(dbPath, '..'), { recursive: true, force: true });
  mkdirSync(join(dbPath, '..'), { recursive: true });
  copyFileSync(sourceDb, dbPath);
  const store = await Store.open(dbPath, { memoryLimit: '3GB', threads: 2 });
  try {
    const { n, top } = (await store.one<{ n: number; top: number }>(
      'SELECT count(*)::INTEGER AS n, max(creator_id) AS top FROM creators',
    ))!;
    const copies = Math.ceil(creators / n) - 1;
    log(`overlap: growing ${n} creators to ${creators} (${copies} copies) in ${dbPath}`);
    // copy k of creator c: id c + k × (top + 1), handle `<handle>.k` (the profile's own handle rules allow the dot)
    await store.run(
      `INSERT INTO creators SELECT c.* REPLACE (c.creator_id + r.k * ?::INTEGER AS creator_id, c.handle || '.' || r.k AS handle)
      FROM creators c, range(1, ?::INTEGER + 1) r(k) ORDER BY r.k, c.creator_id LIMIT ?`,
      [top + 1, copies, creators - n],
    );
    log('overlap: creators copied; writing a sketch for every creator');
    await store.run(`CREATE TEMP TABLE demo_sketches AS
      SELECT (row_number() OVER (ORDER BY creator_id) - 1)::INTEGER AS i, sample_size, hashes, updated_at, checksum FROM follower_sketches`);
    const sketches = (await store.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM demo_sketches'))!.n;
    await store.run('DELETE FROM follower_sketches');
    // one copy at a time, in creator order (the creators' own order: the small sketch table is the join's build side),
    // so no sort or window holds the lists: 16 KB each, a million of them
    for (let k = 0; k <= copies; k++) {
      await store.run(
        `INSERT INTO follower_sketches (creator_id, sample_size, hashes, updated_at, checksum)
        SELECT c.creator_id, s.sample_size, s.hashes, s.updated_at, s.checksum
        FROM creators c JOIN demo_sketches s ON s.i = c.creator_id % ?::INTEGER
        WHERE c.creator_id BETWEEN ?::INTEGER AND ?::INTEGER`,
        [sketches, k * (top + 1), k * (top + 1) + top],
      );
      if (k % 5 === 4) log(`overlap: sketches of copy ${k + 1} of ${copies + 1} written`);
    }
    await store.run('CHECKPOINT');
  } finally {
    await store.close();
  }
  writeFileSync(done, new Date().toISOString());
}

/** 10-creator overlaps of creators with a sketch, drawn at random: whole requests and their phases. */
async function measureStore(dbPath: string, requests: number, original: boolean): Promise<OverlapSizeFigures> {
  const store = await Store.open(dbPath, { memoryLimit: '2GB', threads: 2 });
  try {
    // the index the API process holds (opened from its files beside the store, or built and written once)
    const started = performance.now();
    const index = await new CreatorSearchService(store, { prepareLookalikes: false }).currentIndex(INDEX_WAIT_MS);
    if (!index) throw new Error(`no search index of ${dbPath} within ${INDEX_WAIT_MS / 1000} s`);
    const indexS = (performance.now() - started) / 1000;
    const fillS = await fillSlots(store, dbPath);
    const counts = (await store.one<{ creators: number; sketches: number }>(
      'SELECT (SELECT count(*) FROM creators)::INTEGER AS creators, (SELECT count(*) FROM follower_sketches)::INTEGER AS sketches',
    ))!;
    // the grown store's creators are drawn from across its ids (every one has a sketch); the seeded store's from those with one
    const refs = await store.all<Ref>(
      original
        ? 'SELECT c.creator_id, c.handle, c.platform FROM creators c SEMI JOIN follower_sketches s ON s.creator_id = c.creator_id'
        : 'SELECT creator_id, handle, platform FROM creators USING SAMPLE 20000 ROWS (reservoir, 26)',
    );
    const rand = prng(26);
    const pick = (): Ref[] => {
      const set = new Map<number, Ref>();
      while (set.size < 10) {
        const r = refs[Math.floor(rand() * refs.length)]!;
        set.set(r.creator_id, r);
      }
      return [...set.values()];
    };
    for (let i = 0; i < Math.min(20, requests); i++) await audienceOverlap(store, pick(), index);
    const wall: number[] = [];
    const cpu: number[] = [];
    const phases = {
      lookups: [] as number[],
      sketches: [] as number[],
      estimate: [] as number[],
      store_lookups: [] as number[],
    };
    const bare: number[] = [];
    for (let i = 0; i < requests; i++) {
      // the bare limit: the sketch read of another set drawn the same way, as cold as the request's (a store of
      // 12 GB is not all in memory, and a set read once is: the phases below are its second read)
      const other = pick();
      const b0 = performance.now();
      await selectSketchHashes(
        store,
        other.map((r) => r.creator_id),
      );
      bare.push(performance.now() - b0);
      const set = pick();
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await audienceOverlap(store, set, index);
      const used = process.cpuUsage(c0);
      wall.push(performance.now() - t0);
      cpu.push((used.user + used.system) / 1000);
      // the phases of another request over the same set, one at a time
      const t1 = performance.now();
      const found = set.map((r) => resolveIndexedHandle(index, r.handle, r.platform));
      const t2 = performance.now();
      const sketches = await readSketches(
        store,
        found.map((r) => r.creator_id),
      );
      const t3 = performance.now();
      estimateOverlap(
        found.map((r) => ({
          followers: index.item(r.creator_id)?.followers ?? 0,
          sketch: {
            sampleSize: sketches.get(r.creator_id)?.sample_size ?? 0,
            hashes: sketches.get(r.creator_id)?.hashes ?? [],
          },
        })),
      );
      const t4 = performance.now();
      // what the index replaced: the ten lookups in the store
      await Promise.all(set.map((r) => resolveHandle(store, r.handle, r.platform)));
      phases.lookups.push(t2 - t1);
      phases.sketches.push(t3 - t2);
      phases.estimate.push(t4 - t3);
      phases.store_lookups.push(performance.now() - t4);
    }
    const p99 = percentile(wall, 0.99);
    const bareP99 = percentile(bare, 0.99);
    return {
      ...counts,
      requests,
      p50_ms: round(percentile(wall, 0.5)),
      p99_ms: round(p99),
      cpu_p50_ms: round(percentile(cpu, 0.5)),
      cpu_p99_ms: round(percentile(cpu, 0.99)),
      bare_p50_ms: round(percentile(bare, 0.5)),
      bare_p99_ms: round(bareP99),
      bare_ratio: round(bareP99 / p99),
      phases_p50_ms: {
        lookups: round(percentile(phases.lookups, 0.5)),
        sketches: round(percentile(phases.sketches, 0.5)),
        estimate: round(percentile(phases.estimate, 0.5)),
        store_lookups: round(percentile(phases.store_lookups, 0.5)),
      },
      index_s: round(indexS),
      slots_fill_s: round(fillS),
    };
  } finally {
    await store.close();
  }
}

/**
 * Fills the sketch slots beside the store at once, as an operator would after a load (requests fill
 * them as they read, but a bench drawing sets at random would time mostly first reads); once per
 * store, a marker file says so. Seconds taken.
 */
async function fillSlots(store: Store, dbPath: string): Promise<number> {
  const done = `${dbPath}.slots-filled`;
  const slots = await sketchSlotsOf(store);
  if (!slots || existsSync(done)) return 0;
  const started = performance.now();
  await slots.fill(store);
  writeFileSync(done, new Date().toISOString());
  return (performance.now() - started) / 1000;
}

/** How long a run waits for the search index: building it at a million creators takes minutes on a loaded machine. */
const INDEX_WAIT_MS = 30 * 60_000;

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

if (process.argv[1]?.endsWith('overlap-scale.ts')) {
  const [sourceDb, creators = '1000000', requests = '300'] = process.argv.slice(2);
  if (!sourceDb) {
    console.error('usage: run-ts bench/overlap-scale.ts <seeded store.duckdb> [creators] [requests]');
    process.exit(2);
  }
  const result = await runOverlapScale({
    sourceDb,
    dir: 'bench/work',
    creators: Number(creators),
    requests: Number(requests),
    log: (line) => console.log(line),
  });
  console.log(JSON.stringify(result, null, 2));
}
