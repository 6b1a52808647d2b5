// Alternatives to the lookalike method, measured by brute force on the same
// index and personas as bench/lookalikes.bench.ts (docs/lookalikes.md).
import type { LookalikeModel, LookalikeProfile } from '../data/creators/search-index/lookalike-model.js';
import { compareProfiles } from '../data/creators/search-index/lookalike-search.js';

/** A similarity between two base positions (higher: more alike). */
export type PairScore = (a: number, b: number) => number;

/**
 * recall@10 of `score` over the queried positions against their mates (brute force over every position),
 * and R-precision: the share of the mates among the first R answers, R the creator's mate count (stricter).
 */
export function recallAt10(
  size: number,
  queried: ReadonlyArray<{ p: number; mates: readonly number[] }>,
  score: PairScore,
): { recall10: number; rPrecision: number } {
  let found = 0;
  let wanted = 0;
  let inR = 0;
  const best = new Float64Array(10);
  const bestP = new Int32Array(10);
  for (const q of queried) {
    best.fill(-1);
    bestP.fill(-1);
    for (let p = 0; p < size; p++) {
      if (p === q.p) continue;
      const s = score(q.p, p);
      if (!(s > best[9]!)) continue;
      let at = 9;
      while (at > 0 && s > best[at - 1]!) {
        best[at] = best[at - 1]!;
        bestP[at] = bestP[at - 1]!;
        at--;
      }
      best[at] = s;
      bestP[at] = p;
    }
    const top = new Set(bestP);
    const firstR = new Set(bestP.subarray(0, q.mates.length));
    for (const m of q.mates) {
      wanted++;
      if (top.has(m)) found++;
      if (firstR.has(m)) inR++;
    }
  }
  return { recall10: wanted === 0 ? Number.NaN : found / wanted, rPrecision: wanted === 0 ? Number.NaN : inR / wanted };
}

/** The method itself (lookalike-search.ts's figures, compared pair by pair), for the same brute-force measure. */
export function chosenMethod(
  model: LookalikeModel,
  profile: (p: number) => LookalikeProfile,
): Record<string, PairScore> {
  const memo = new Map<number, LookalikeProfile>();
  const of = (p: number): LookalikeProfile => {
    let x = memo.get(p);
    if (!x) memo.set(p, (x = profile(p)));
    return x;
  };
  const pair = (a: number, b: number) => compareProfiles(model, of(a), of(b));
  return {
    'chosen: content TF-IDF cosine (niche, hashtags, mentions, caption words)': (a, b) => pair(a, b).content,
    'chosen: audience histogram intersection': (a, b) => pair(a, b).audience,
    'chosen: both (mean)': (a, b) => {
      const f = pair(a, b);
      return (f.content + f.audience) / 2;
    },
  };
}

/** Content alternatives: Jaccard of the kept terms (no weights), and TF-IDF cosine over hashtags alone. */
export function contentAlternatives(model: LookalikeModel): Record<string, PairScore> {
  const c = model.content;
  const hashtagsEnd = c.offsets.mentions;
  const terms = (p: number): Int32Array => c.forward.codes.subarray(c.forward.offsets[p]!, c.forward.offsets[p + 1]!);
  const overlap = (a: Int32Array, b: Int32Array, weigh: (code: number) => number, keep: (code: number) => boolean) => {
    let i = 0;
    let j = 0;
    let shared = 0;
    let na = 0;
    let nb = 0;
    for (const x of a) if (keep(x)) na += weigh(x);
    for (const y of b) if (keep(y)) nb += weigh(y);
    while (i < a.length && j < b.length) {
      if (a[i]! < b[j]!) i++;
      else if (b[j]! < a[i]!) j++;
      else {
        if (keep(a[i]!)) shared += weigh(a[i]!);
        i++;
        j++;
      }
    }
    return { shared, na, nb };
  };
  return {
    'content: Jaccard of the terms (no IDF)': (a, b) => {
      const o = overlap(
        terms(a),
        terms(b),
        () => 1,
        () => true,
      );
      return o.shared / Math.max(1, o.na + o.nb - o.shared);
    },
    'content: TF-IDF cosine, hashtags only': (a, b) => {
      const o = overlap(
        terms(a),
        terms(b),
        (x) => c.weight2[x]!,
        (x) => x < hashtagsEnd,
      );
      return o.na > 0 && o.nb > 0 ? o.shared / Math.sqrt(o.na * o.nb) : 0;
    },
  };
}

/** Audience alternatives: cosine of the share vectors, and total-variation (L1) distance over country alone. */
export function audienceAlternatives(model: LookalikeModel): Record<string, PairScore> {
  const a = model.audience;
  const dense = (p: number, into: Float64Array): Float64Array => {
    into.fill(0);
    for (let i = a.forward.offsets[p]!; i < a.forward.offsets[p + 1]!; i++)
      into[a.forward.codes[i]!] = a.forward.shares[i]!;
    return into;
  };
  const va = new Float64Array(a.keys.length);
  let cached = -1;
  return {
    'audience: cosine of the share vectors': (p, q) => {
      if (cached !== p) {
        dense(p, va);
        cached = p;
      }
      let dot = 0;
      let nq = 0;
      for (let i = a.forward.offsets[q]!; i < a.forward.offsets[q + 1]!; i++) {
        const v = a.forward.shares[i]!;
        dot += v * va[a.forward.codes[i]!]!;
        nq += v * v;
      }
      let np = 0;
      for (let i = a.forward.offsets[p]!; i < a.forward.offsets[p + 1]!; i++)
        np += a.forward.shares[i]! * a.forward.shares[i]!;
      return np > 0 && nq > 0 ? dot / Math.sqrt(np * nq) : 0;
    },
    'audience: country mix only (intersection)': (p, q) => {
      if (cached !== p) {
        dense(p, va);
        cached = p;
      }
      let shared = 0;
      for (let i = a.forward.offsets[q]!; i < a.forward.offsets[q + 1]!; i++) {
        const code = a.forward.codes[i]!;
        if (a.dimOf[code] === 0) shared += Math.min(a.forward.shares[i]!, va[code]!);
      }
      return shared;
    },
  };
}
