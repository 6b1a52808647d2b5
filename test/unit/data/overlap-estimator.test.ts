import { describe, expect, it } from 'vitest';
import { prng } from '../../../core/prng.js';
import { SKETCH_K } from '../../../data/audience-overlap/follower-sketch.queries.js';
import { estimateOverlap, type OverlapMember } from '../../../data/audience-overlap/overlap-estimator.js';

/** A random 53-bit hash, as the sketch hash of one follower id is (two draws: one gives 32 bits). */
const hashOf = (rand: () => number): number => Math.floor(rand() * 2 ** 32) * 2 ** 21 + Math.floor(rand() * 2 ** 21);

/**
 * `n` audiences of 1,500–20,000 sampled ids: each takes a share of its ids from one
 * of three shared communities (some sizeable, so overlaps run from none to large)
 * and the rest of its own.
 */
function audiences(rand: () => number, n: number): Array<{ followers: number; ids: Set<number> }> {
  const communities = [2_000, 8_000, 30_000].map((size) => [
    ...new Set(Array.from({ length: size }, () => hashOf(rand))),
  ]);
  return Array.from({ length: n }, () => {
    const size = 1_500 + Math.floor(rand() * 18_500);
    const community = communities[Math.floor(rand() * communities.length)] as number[];
    const shared = Math.min(community.length, Math.floor(size * rand() * 0.9));
    const ids = new Set<number>();
    while (ids.size < shared) ids.add(community[Math.floor(rand() * community.length)] as number);
    while (ids.size < size) ids.add(hashOf(rand));
    return { followers: size * (1 + Math.floor(rand() * 500)), ids };
  });
}

/** The KMV sketch of a sample: its SKETCH_K smallest hashes, ascending. */
function sketchOf(a: { followers: number; ids: Set<number> }): OverlapMember {
  return {
    followers: a.followers,
    sketch: { sampleSize: a.ids.size, hashes: [...a.ids].sort((x, y) => x - y).slice(0, SKETCH_K) },
  };
}

/** unique_pct and each member's unique share counted from the full samples (the definition in docs/audience-overlap.md). */
function exact(all: ReadonlyArray<{ followers: number; ids: Set<number> }>): { uniquePct: number; shares: number[] } {
  const counts = new Map<number, number>();
  for (const a of all) for (const id of a.ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  const holders = (id: number): number => counts.get(id) ?? 0;
  let unique = 0;
  const shares = all.map((a) => {
    let alone = 0;
    let weight = 0;
    for (const id of a.ids) {
      const c = holders(id);
      if (c === 1) alone++;
      weight += 1 / c;
    }
    unique += (a.followers * weight) / a.ids.size;
    return alone / a.ids.size;
  });
  return { uniquePct: (100 * unique) / all.reduce((s, a) => s + a.followers, 0), shares };
}

describe('the KMV overlap estimator against exact counts on the full samples', () => {
  it.each([2, 5, 10])(
    'is within 2 points on unique_pct for sets of %i, with most members inside its 95 percent margin',
    (n) => {
      const rand = prng(100 + n);
      let inside = 0;
      let members = 0;
      for (let trial = 0; trial < 15; trial++) {
        const all = audiences(rand, n);
        const estimate = estimateOverlap(all.map(sketchOf));
        const truth = exact(all);
        const total = all.reduce((s, a) => s + a.followers, 0);
        expect(estimate.exact).toBe(false);
        expect(Math.abs((100 * estimate.uniqueFollowers) / total - truth.uniquePct)).toBeLessThanOrEqual(2);
        estimate.uniqueShares.forEach((share, i) => {
          members++;
          if (Math.abs(share - (truth.shares[i] ?? 0)) <= estimate.margin) inside++;
        });
      }
      expect(inside / members).toBeGreaterThanOrEqual(0.9);
    },
  );

  it('is exact when every sample fits its sketch, pairs included', () => {
    const a = new Set([1, 2, 3, 4, 5, 6, 7, 8]);
    const b = new Set([5, 6, 7, 8, 9, 10]);
    const c = new Set([100, 200]);
    const members = [a, b, c].map((ids, i) => ({ followers: [800, 600, 1000][i] as number, ids })).map(sketchOf);
    const estimate = estimateOverlap(members);
    expect(estimate.exact).toBe(true);
    expect(estimate.margin).toBe(0);
    expect(estimate.uniqueShares).toEqual([0.5, 2 / 6, 1]);
    // a: 4 alone + 4 halves of 8 ids → 0.75 of 800; b: 2 alone + 4 halves of 6 → 4/6 of 600; c all 1000
    expect(estimate.uniqueFollowers).toBeCloseTo(600 + 400 + 1000, 6);
    expect(estimate.pairs).toEqual([
      { a: 0, b: 1, ofA: 0.5, ofB: 4 / 6 },
      { a: 0, b: 2, ofA: 0, ofB: 0 },
      { a: 1, b: 2, ofA: 0, ofB: 0 },
    ]);
  });

  it('costs the same at any sample size: the sketch is read, never the sample', () => {
    const rand = prng(9);
    const big = audiences(rand, 2).map(sketchOf);
    for (const m of big) expect(m.sketch.hashes.length).toBeLessThanOrEqual(SKETCH_K);
    const huge = { ...big[0], sketch: { ...big[0]?.sketch, sampleSize: 50_000_000 } } as OverlapMember;
    expect(() => estimateOverlap([huge, big[1] as OverlapMember])).not.toThrow();
  });
});
