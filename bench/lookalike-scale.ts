// Lookalikes at a million creators without seeding a million (docs/lookalikes.md, "Speed"):
// the search index of a seeded demo world is replicated R times into a synthetic
// lookalike model — every creator R times, the copies beside each other so the
// positions still cluster by platform, niche and country, each copy but the first
// with a quarter of its content terms dropped and its audience shares scaled by
// 0.8–1.0, so no copy is a duplicate — and the real ranking code
// (rankLookalikes) runs over it with the filters' candidates replicated the same way.
import { prng } from '../core/prng.js';
import type { CreatorSearchFilters } from '../data/creators/creator-search.types.js';
import { searchContext } from '../data/creators/search-context.js';
import {
  AUDIENCE_DIMS,
  baseProfile,
  keyHolders,
  lookalikeModel,
  type AudienceModel,
  type ContentModel,
  type LookalikeModel,
  type LookalikeTermColumn,
} from '../data/creators/search-index/lookalike-model.js';
import {
  rankLookalikes,
  type LookalikeBasis,
  type NicheColumn,
} from '../data/creators/search-index/lookalike-search.js';
import type { SearchIndex, SearchIndexData } from '../data/creators/search-index/search-index.js';
import { TermPostings } from '../data/creators/search-index/term-postings.js';
import { percentile } from './stats.js';

/** A replicated model, its ids and niche column: what rankLookalikes reads. */
export interface ScaledModel {
  factor: number;
  model: LookalikeModel;
  ids: Int32Array;
  niche: NicheColumn;
  /** The replicated niche codes, as `baseProfile` reads them. */
  data: SearchIndexData;
}

/** Share of a copy's content terms dropped (copies 1..R-1; copy 0 is the original). */
const DROP = 0.25;

/** Replicates the index's lookalike model `factor` times (copy k of position p at p × factor + k). */
export function scaleModel(index: SearchIndex, factor: number): ScaledModel {
  const { data } = index.lookalikeView();
  const base = lookalikeModel(data);
  const size = base.size * factor;
  const keep = keepMask(base.content);
  const content = scaleContent(base.content, base.size, factor, keep);
  const audience = scaleAudience(base.audience, base.size, factor);
  const maxId = data.ids.reduce((m, id) => Math.max(m, id), 0) + 1;
  const ids = new Int32Array(size);
  const codes = new Uint16Array(size);
  for (let p = 0; p < base.size; p++)
    for (let k = 0; k < factor; k++) {
      ids[p * factor + k] = data.ids[p]! + k * maxId;
      codes[p * factor + k] = data.categorical.niche.codes[p]!;
    }
  const runs = data.categorical.niche.runs?.map((r) => r.map((x) => x * factor)) ?? null;
  const scaledData = { categorical: { niche: { codes } } } as unknown as SearchIndexData;
  return { factor, model: { size, content, audience }, ids, niche: { codes, runs }, data: scaledData };
}

/** Per (position, forward entry): whether copy k keeps it (a fixed pseudo-random quarter dropped per copy). */
function keepMask(c: ContentModel): (p: number, i: number, k: number) => boolean {
  return (p, i, k) => {
    if (k === 0) return true;
    // a hash of (entry, copy): the same answer wherever it is asked (forward lists and postings agree)
    let h = Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(k, 0x85ebca6b) ^ Math.imul(p, 0xc2b2ae35);
    h ^= h >>> 15;
    h = Math.imul(h, 0x2c1b3c6d);
    h ^= h >>> 12;
    return (h >>> 0) / 2 ** 32 >= DROP || c.forward.offsets[p + 1]! - c.forward.offsets[p]! <= 1;
  };
}

function scaleContent(
  c: ContentModel,
  size: number,
  factor: number,
  keep: (p: number, i: number, k: number) => boolean,
): ContentModel {
  const n = size * factor;
  const fwdOffsets = new Int32Array(n + 1);
  const codes: number[] = [];
  const holders = new Map<number, number[]>();
  for (let p = 0; p < size; p++)
    for (let k = 0; k < factor; k++) {
      const q = p * factor + k;
      for (let i = c.forward.offsets[p]!; i < c.forward.offsets[p + 1]!; i++) {
        if (!keep(p, i, k)) continue;
        const code = c.forward.codes[i]!;
        codes.push(code);
        let list = holders.get(code);
        if (!list) holders.set(code, (list = []));
        list.push(q);
      }
      fwdOffsets[q + 1] = codes.length;
    }
  const fwdCodes = Int32Array.from(codes);
  const invNorm = new Float32Array(n);
  for (let q = 0; q < n; q++) {
    const p = Math.floor(q / factor);
    const norm0 = c.invNorm[p]!;
    // the niche's share of the norm is the original's: 1/invNorm² less its kept terms' weights
    let terms0 = 0;
    for (let i = c.forward.offsets[p]!; i < c.forward.offsets[p + 1]!; i++) terms0 += c.weight2[c.forward.codes[i]!]!;
    let terms = 0;
    for (let i = fwdOffsets[q]!; i < fwdOffsets[q + 1]!; i++) terms += c.weight2[fwdCodes[i]!]!;
    const sum = (norm0 > 0 ? 1 / (norm0 * norm0) : 0) - terms0 + terms;
    invNorm[q] = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  }
  const postings = {} as Record<LookalikeTermColumn, TermPostings>;
  for (const column of Object.keys(c.offsets) as LookalikeTermColumn[]) {
    const original = c.postings[column];
    const offsets = new Int32Array(original.terms.length + 1);
    const all: number[] = [];
    for (let t = 0; t < original.terms.length; t++) {
      for (const q of holders.get(c.offsets[column] + t) ?? []) all.push(q);
      offsets[t + 1] = all.length;
    }
    postings[column] = TermPostings.of(n, original.terms, offsets, Int32Array.from(all), new Map());
  }
  return {
    ...c,
    postings,
    forward: { offsets: fwdOffsets, codes: fwdCodes },
    invNorm,
    acc: new Float32Array(n),
    query: new Float32Array(c.query.length),
    touched: new Int32Array(n),
  };
}

function scaleAudience(a: AudienceModel, size: number, factor: number): AudienceModel {
  const rand = prng(26);
  const n = size * factor;
  const offsets = new Int32Array(n + 1);
  const total = a.forward.codes.length * factor;
  const codes = new Uint16Array(total);
  const shares = new Uint16Array(total);
  let at = 0;
  for (let p = 0; p < size; p++)
    for (let k = 0; k < factor; k++) {
      const scale = k === 0 ? 1 : 0.8 + 0.2 * rand();
      for (let i = a.forward.offsets[p]!; i < a.forward.offsets[p + 1]!; i++) {
        codes[at] = a.forward.codes[i]!;
        shares[at++] = Math.round(a.forward.shares[i]! * scale);
      }
      offsets[p * factor + k + 1] = at;
    }
  const forward = { offsets, codes, shares };
  return {
    ...a,
    forward,
    countryHolders: keyHolders(AUDIENCE_DIMS.indexOf('country'), a.dimOf, forward),
    countryShare: new Uint16Array(n),
    interestHolders: keyHolders(AUDIENCE_DIMS.indexOf('interest'), a.dimOf, forward),
    interestShare: new Uint16Array(n),
  };
}

/** The base candidates of `filters` in the replicated model: each original position's copies. */
export function scaledCandidates(index: SearchIndex, filters: CreatorSearchFilters, factor: number): Int32Array | null {
  const { base } = index.matching(filters, searchContext(Date.now()));
  if (!base) return null;
  const out = new Int32Array(base.length * factor);
  for (let i = 0; i < base.length; i++) for (let k = 0; k < factor; k++) out[i * factor + k] = base[i]! * factor + k;
  return out;
}

export interface ScaleWorkload {
  name: string;
  basis: LookalikeBasis;
  filters: (creatorId: number) => CreatorSearchFilters;
}

export interface ScaleFigures {
  creators: number;
  factor: number;
  build_s: number;
  /**
   * Per workload: the filters at the seeded size (the index's own matching, ms), the ranking at the scaled size
   * (ms; CPU ms), and the bare limit: one pass reading a 4-byte value of every one of the scaled creators, timed
   * right after each request (what the machine's load does to the least work a full read could be, ms).
   */
  workloads: Record<
    string,
    {
      filter_p99_ms: number;
      rank_p50_ms: number;
      rank_p99_ms: number;
      cpu_p50_ms: number;
      cpu_p99_ms: number;
      bare_p50_ms: number;
      bare_p99_ms: number;
    }
  >;
}

/**
 * Times `rankLookalikes` (limit + 1 = 21, as a page of 20 asks) over the replicated
 * model for each workload and target, and the filters' own matching on the seeded index.
 */
export function measureScaled(
  index: SearchIndex,
  scaled: ScaledModel,
  targets: readonly number[],
  workloads: readonly ScaleWorkload[],
  buildS: number,
): ScaleFigures {
  const out: ScaleFigures['workloads'] = {};
  const f = scaled.factor;
  for (const w of workloads) {
    const wall: number[] = [];
    const cpu: number[] = [];
    const filterMs: number[] = [];
    const bare: number[] = [];
    for (const [i, creatorId] of [...targets.slice(0, WARM_UP), ...targets].entries()) {
      const p = index.basePosition(creatorId);
      if (p < 0) continue;
      const q = p * f;
      const t0 = performance.now();
      const base = scaledCandidates(index, w.filters(creatorId), 1);
      const filtered = performance.now() - t0;
      const candidates = base ? replicate(base, f) : null;
      const target = baseProfile(scaled.model, scaled.data, q);
      const started = performance.now();
      const c0 = process.cpuUsage();
      rankLookalikes(
        scaled.model,
        scaled.ids,
        scaled.niche,
        { base: candidates, live: null, delta: [] },
        { basis: w.basis, target, targetId: scaled.ids[q]!, after: null, limit: 21 },
        q,
      );
      const used = process.cpuUsage(c0);
      const ranked = performance.now() - started;
      const bareMs = barePass(scaled.model.content.invNorm);
      if (i < WARM_UP) continue;
      filterMs.push(filtered);
      wall.push(ranked);
      cpu.push((used.user + used.system) / 1000);
      bare.push(bareMs);
    }
    out[w.name] = {
      filter_p99_ms: round(percentile(filterMs, 0.99)),
      rank_p50_ms: round(percentile(wall, 0.5)),
      rank_p99_ms: round(percentile(wall, 0.99)),
      cpu_p50_ms: round(percentile(cpu, 0.5)),
      cpu_p99_ms: round(percentile(cpu, 0.99)),
      bare_p50_ms: round(percentile(bare, 0.5)),
      bare_p99_ms: round(percentile(bare, 0.99)),
    };
  }
  return { creators: scaled.model.size, factor: f, build_s: round(buildS), workloads: out };
}

/** Requests of each workload run first and not counted: the figures are a warm server's. */
const WARM_UP = 10;

/** Milliseconds to read every value of `column` once (a sum, so the read is not optimised away). */
function barePass(column: Float32Array): number {
  const started = performance.now();
  let sum = 0;
  for (let p = 0; p < column.length; p++) sum += column[p]!;
  if (Number.isNaN(sum)) throw new Error('a NaN norm');
  return performance.now() - started;
}

function replicate(base: Int32Array, f: number): Int32Array {
  const out = new Int32Array(base.length * f);
  for (let i = 0; i < base.length; i++) for (let k = 0; k < f; k++) out[i * f + k] = base[i]! * f + k;
  return out;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
