// Lookalike quality and speed (issue 26): recall@10 against the persona groups
// the demo generator plants (data/seed/demo-personas.ts), per basis, and the
// latency of the lookalike service over the search index, with and without
// filters. Standalone: node bin/run-ts.mjs bench/lookalikes.bench.ts
//   [--creators 50000] [--dir bench/work] [--samples 300] [--queries 600]
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CreatorSearchService } from '../data/creators/creator-search.service.js';
import type { CreatorSearchFilters } from '../data/creators/creator-search.types.js';
import { findLookalikes } from '../data/creators/lookalike.service.js';
import type { LookalikeBasis } from '../data/creators/search-index/lookalike-search.js';
import { baseProfile, lookalikeModel } from '../data/creators/search-index/lookalike-model.js';
import { Store } from '../data/store.js';
import { audienceAlternatives, chosenMethod, contentAlternatives, recallAt10 } from './lookalike-alternatives.js';
import { ensureBenchStore } from './bench-store.js';
import { measureScaled, scaleModel, type ScaleFigures } from './lookalike-scale.js';
import { maxRssMb, percentile } from './stats.js';

const BASES: readonly LookalikeBasis[] = ['content', 'audience', 'both'];

export interface LookalikeBenchOptions {
  creators: number;
  dir: string;
  /** Latency samples per workload. */
  samples: number;
  /** Persona creators whose top 10 recall is measured (all of them when fewer). */
  queries: number;
  /** Persona creators the alternative methods are measured on, by brute force (0: none). */
  alternatives: number;
  /** Times the seeded world is replicated into a synthetic model for the scale figures (lookalike-scale.ts); 0 or 1: none. */
  scale?: number;
  log: (line: string) => void;
}

export interface LookalikeFigures {
  creators: number;
  personas: number;
  queried: number;
  index_build_s: number;
  recall_at_10: Record<LookalikeBasis, number>;
  alternatives_recall_at_10: Record<string, number>;
  /** Wall time, and this process's CPU time (what the machine's other load does not inflate as much), per request. */
  latency_ms: Record<string, { p50: number; p99: number; cpu_p50: number; cpu_p99: number }>;
  /** The ranking over the seeded world replicated `scale` times (lookalike-scale.ts); null when not asked for. */
  scaled: ScaleFigures | null;
  peak_rss_mb: number;
  /** The machine's 1, 5 and 15 minute load averages when the run ended (the latencies depend on it). */
  load_average: number[];
}

interface Member extends Record<string, unknown> {
  creator_id: number;
  handle: string;
  platform: string;
  persona: number;
  country: string | null;
}

/** Runs the bench on a store of `creators` demo creators (seeded once under `dir`, then reused). */
export async function benchLookalikes(o: LookalikeBenchOptions): Promise<LookalikeFigures> {
  const dbPath = join(o.dir, `lookalikes-${o.creators}`, 'cds.duckdb');
  await ensureBenchStore(dbPath, o.creators, o.log, 'lookalikes');
  const store = await Store.open(dbPath);
  try {
    const search = new CreatorSearchService(store);
    const started = performance.now();
    await search.buildIndex();
    const buildS = (performance.now() - started) / 1000;
    o.log(`lookalikes: index built in ${buildS.toFixed(1)} s`);
    const members = await store.all<Member>(`SELECT p.creator_id, c.handle, c.platform, p.persona, c.country
      FROM creator_personas p JOIN creators c USING (creator_id) ORDER BY p.creator_id`);
    const byPersona = new Map<number, number[]>();
    for (const m of members) byPersona.set(m.persona, [...(byPersona.get(m.persona) ?? []), m.creator_id]);
    const queried = members.filter((_, i) => i % Math.max(1, Math.ceil(members.length / o.queries)) === 0);
    const ids = new Map(
      (
        await store.all<{ creator_id: number; handle: string; platform: string }>(
          'SELECT creator_id, handle, platform FROM creators',
        )
      ).map((r) => [`${r.platform}/${r.handle}`, r.creator_id]),
    );
    const recall = {} as Record<LookalikeBasis, number>;
    for (const basis of BASES) {
      let found = 0;
      let wanted = 0;
      for (const m of queried) {
        const page = await findLookalikes(store, search, request(m, basis, {}, 10));
        const top = new Set(page.creators.map((c) => ids.get(`${c.platform}/${c.handle}`)));
        for (const mate of byPersona.get(m.persona) ?? []) {
          if (mate === m.creator_id) continue;
          wanted++;
          if (top.has(mate)) found++;
        }
      }
      recall[basis] = wanted === 0 ? Number.NaN : found / wanted;
      o.log(
        `lookalikes: recall@10 ${basis} = ${recall[basis].toFixed(3)} (${found}/${wanted} mates, ${queried.length} creators)`,
      );
    }
    const alternatives = await measureAlternatives(search, members, byPersona, o);
    const latency: LookalikeFigures['latency_ms'] = {};
    for (const [name, basis, filters] of WORKLOADS) {
      const times: number[] = [];
      const cpu: number[] = [];
      for (let i = 0; i < o.samples; i++) {
        const m = members[(i * 7919) % members.length]!;
        const t0 = performance.now();
        const c0 = process.cpuUsage();
        await findLookalikes(store, search, request(m, basis, filters(m), 20));
        const used = process.cpuUsage(c0);
        times.push(performance.now() - t0);
        cpu.push((used.user + used.system) / 1000);
      }
      latency[name] = {
        p50: round(percentile(times, 0.5)),
        p99: round(percentile(times, 0.99)),
        cpu_p50: round(percentile(cpu, 0.5)),
        cpu_p99: round(percentile(cpu, 0.99)),
      };
      o.log(
        `lookalikes: ${name}: p50 ${latency[name].p50} ms, p99 ${latency[name].p99} ms (CPU p50 ${latency[name].cpu_p50}, p99 ${latency[name].cpu_p99})`,
      );
    }
    const scaled = (o.scale ?? 0) > 1 ? await measureScale(search, members, o) : null;
    return {
      creators: o.creators,
      personas: byPersona.size,
      queried: queried.length,
      index_build_s: round(buildS),
      recall_at_10: recall,
      alternatives_recall_at_10: alternatives,
      latency_ms: latency,
      scaled,
      peak_rss_mb: maxRssMb(),
      load_average: os.loadavg().map((x) => round(x)),
    };
  } finally {
    await store.close();
  }
}

const WORKLOADS: Array<[string, LookalikeBasis, (m: Member) => CreatorSearchFilters]> = [
  ['both, no filter', 'both', () => ({})],
  ['content, no filter', 'content', () => ({})],
  ['audience, no filter', 'audience', () => ({})],
  ['both, country + followers_max', 'both', (m) => ({ country: m.country ?? 'US', followers_max: 100_000 })],
  ['both, audience_country + verified=false', 'both', () => ({ audience_country: 'DE', verified: false })],
  [
    'both, followers 10k–500k + engagement_min',
    'both',
    () => ({ followers_min: 10_000, followers_max: 500_000, engagement_min: 1 }),
  ],
];

/** The ranking over the seeded world replicated `o.scale` times, every workload, `o.samples` persona creators each. */
async function measureScale(
  search: CreatorSearchService,
  members: readonly Member[],
  o: LookalikeBenchOptions,
): Promise<ScaleFigures | null> {
  const index = await search.currentIndex(0);
  if (!index) return null;
  const started = performance.now();
  const scaled = scaleModel(index, o.scale ?? 1);
  const buildS = (performance.now() - started) / 1000;
  o.log(`lookalikes: ${scaled.model.size} creators replicated (x${scaled.factor}) in ${buildS.toFixed(1)} s`);
  const byId = new Map(members.map((m) => [m.creator_id, m]));
  const targets = Array.from({ length: Math.min(o.samples, members.length) }, (_, i) => {
    return members[(i * 7919) % members.length]!.creator_id;
  });
  const figures = measureScaled(
    index,
    scaled,
    targets,
    WORKLOADS.map(([name, basis, filters]) => ({ name, basis, filters: (id: number) => filters(byId.get(id)!) })),
    buildS,
  );
  for (const [name, w] of Object.entries(figures.workloads))
    o.log(
      `lookalikes at ${scaled.model.size}: ${name}: rank p50 ${w.rank_p50_ms} ms, p99 ${w.rank_p99_ms} ms (CPU p50 ${w.cpu_p50_ms}, p99 ${w.cpu_p99_ms}); filters at ${o.creators} p99 ${w.filter_p99_ms} ms; bare pass p50 ${w.bare_p50_ms} ms, p99 ${w.bare_p99_ms} ms`,
    );
  return figures;
}

/** recall@10 of the alternative methods (lookalike-alternatives.ts) on `o.alternatives` persona creators. */
async function measureAlternatives(
  search: CreatorSearchService,
  members: readonly Member[],
  byPersona: ReadonlyMap<number, number[]>,
  o: LookalikeBenchOptions,
): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  const index = await search.currentIndex(0);
  if (!index || o.alternatives <= 0) return out;
  const model = lookalikeModel(index.lookalikeView().data);
  const step = Math.max(1, Math.ceil(members.length / o.alternatives));
  const queried = members
    .filter((_, i) => i % step === 0)
    .map((m) => ({
      p: index.basePosition(m.creator_id),
      mates: (byPersona.get(m.persona) ?? []).filter((id) => id !== m.creator_id).map((id) => index.basePosition(id)),
    }));
  const data = index.lookalikeView().data;
  const methods = {
    ...chosenMethod(model, (p) => baseProfile(model, data, p)),
    ...contentAlternatives(model),
    ...audienceAlternatives(model),
  };
  for (const [name, score] of Object.entries(methods)) {
    const r = recallAt10(model.size, queried, score);
    out[`${name}: recall@10`] = round(r.recall10);
    out[`${name}: R-precision`] = round(r.rPrecision);
    o.log(
      `lookalikes: ${name}: recall@10 ${round(r.recall10)}, R-precision ${round(r.rPrecision)} (${queried.length} creators)`,
    );
  }
  return out;
}

function request(m: Member, basis: LookalikeBasis, filters: CreatorSearchFilters, limit: number) {
  return { handle: m.handle, platform: m.platform, basis, filters, after: null, limit, accountId: null };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('lookalikes.bench.ts')) {
  const { values } = parseArgs({
    options: {
      creators: { type: 'string', default: '50000' },
      dir: { type: 'string', default: 'bench/work' },
      samples: { type: 'string', default: '300' },
      queries: { type: 'string', default: '600' },
      alternatives: { type: 'string', default: '200' },
      scale: { type: 'string', default: '0' },
    },
  });
  const figures = await benchLookalikes({
    creators: Number(values.creators),
    dir: values.dir!,
    samples: Number(values.samples),
    queries: Number(values.queries),
    alternatives: Number(values.alternatives),
    scale: Number(values.scale),
    log: (line) => console.log(line),
  });
  console.log(JSON.stringify(figures, null, 2));
}
