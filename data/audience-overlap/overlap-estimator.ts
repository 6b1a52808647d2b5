/**
 * A creator's KMV sketch: the smallest hashes of its sampled follower ids,
 * ascending, and how many ids the sample has. When the sample has more ids than
 * the sketch holds, the sketch is the sample's hashes below its largest kept
 * hash (its theta); otherwise it is the whole sample.
 */
export interface FollowerSketch {
  sampleSize: number;
  hashes: readonly number[];
}

/** One creator of an overlap question: its follower count and its sketch. */
export interface OverlapMember {
  followers: number;
  sketch: FollowerSketch;
}

/** What the sketches say; shares are 0–1 fractions (the API turns them into percent). */
export interface OverlapEstimate {
  /** The size of the union of the audiences, in followers. */
  uniqueFollowers: number;
  /** Per member, in order: the share of its followers who follow none of the others. */
  uniqueShares: number[];
  /** Per pair i < j, in order (0-1, 0-2, …, 1-2, …): |A∩B| / |A| and |A∩B| / |B|. */
  pairs: Array<{ a: number; b: number; ofA: number; ofB: number }>;
  /** The 95 % margin, in share points (0–1), of a member's unique share against the answer of the full samples. */
  margin: number;
  /** Whether every sketch held its whole sample, so the answer is the full samples' own. */
  exact: boolean;
}

/** The sketch's theta: its largest kept hash when it dropped some, else +∞ (it holds every id). */
function thetaOf(s: FollowerSketch): number {
  return s.sampleSize > s.hashes.length ? (s.hashes[s.hashes.length - 1] ?? 0) : Number.POSITIVE_INFINITY;
}

/** How many of the ascending `hashes` are below `theta`. */
function countBelow(hashes: readonly number[], theta: number): number {
  if (theta === Number.POSITIVE_INFINITY) return hashes.length;
  let lo = 0;
  let hi = hashes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((hashes[mid] as number) < theta) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Estimates the overlap of 2–10 audiences from their sketches (docs/audience-overlap.md).
 * All sets are cut at the smallest theta, so the kept hashes of each are a
 * uniform sample of it and membership among them is exact. Each kept id of
 * member i counts 1 / (the number of members it is in) towards the union, so
 * `uniqueFollowers` = Σ followers_i × mean over i's kept ids of 1 / c(id): the
 * union of the audiences when each sample stands for its creator's followers.
 * Pairs use their own, larger cut (min of the two thetas).
 */
export function estimateOverlap(members: readonly OverlapMember[]): OverlapEstimate {
  const thetas = members.map((m) => thetaOf(m.sketch));
  const theta = Math.min(...thetas);
  const { alone, weight, shared } = mergeSketches(members, thetas, theta);
  let uniqueFollowers = 0;
  const uniqueShares: number[] = [];
  let margin = 0;
  members.forEach((m, i) => {
    const n = countBelow(m.sketch.hashes, theta);
    const share = n === 0 ? 0 : (alone[i] as number) / n;
    uniqueShares.push(share);
    uniqueFollowers += n === 0 ? m.followers : (m.followers * (weight[i] as number)) / n;
    margin = Math.max(margin, shareMargin(share, n, m.sketch.sampleSize));
  });
  const pairs: OverlapEstimate['pairs'] = [];
  for (let a = 0; a < members.length; a++) {
    for (let b = a + 1; b < members.length; b++) {
      const cut = Math.min(thetas[a] as number, thetas[b] as number);
      const x = countBelow((members[a] as OverlapMember).sketch.hashes, cut);
      const y = countBelow((members[b] as OverlapMember).sketch.hashes, cut);
      const both = shared[a * members.length + b] as number;
      pairs.push({ a, b, ofA: x === 0 ? 0 : both / x, ofB: y === 0 ? 0 : both / y });
    }
  }
  return { uniqueFollowers, uniqueShares, pairs, margin, exact: theta === Number.POSITIVE_INFINITY };
}

/**
 * One merge of the members' ascending hash lists (the same hash is at the head of
 * every list holding it at once), which answers every figure without a copy of
 * any list: below the request's cut `theta`, per member how many of its kept
 * hashes no other member holds (`alone`) and the sum over them of 1 / (the
 * members holding it) (`weight`); per pair (index a × n + b), how many hashes
 * both hold below the pair's own cut (`shared`).
 */
function mergeSketches(
  members: readonly OverlapMember[],
  thetas: readonly number[],
  theta: number,
): { alone: Float64Array; weight: Float64Array; shared: Int32Array } {
  const n = members.length;
  const lists = members.map((m) => m.sketch.hashes);
  const at = new Int32Array(n);
  const alone = new Float64Array(n);
  const weight = new Float64Array(n);
  const shared = new Int32Array(n * n);
  const holders = new Int32Array(n);
  for (;;) {
    let min = Number.POSITIVE_INFINITY;
    for (let i = 0; i < n; i++) {
      const list = lists[i] as readonly number[];
      const k = at[i] as number;
      if (k < list.length && (list[k] as number) < min) min = list[k] as number;
    }
    if (min === Number.POSITIVE_INFINITY) break;
    let count = 0;
    for (let i = 0; i < n; i++) {
      const list = lists[i] as readonly number[];
      const k = at[i] as number;
      if (k < list.length && list[k] === min) {
        holders[count++] = i;
        at[i] = k + 1;
      }
    }
    if (min < theta)
      for (let h = 0; h < count; h++) {
        const i = holders[h] as number;
        if (count === 1) alone[i] = (alone[i] as number) + 1;
        weight[i] = (weight[i] as number) + 1 / count;
      }
    for (let h = 0; h < count; h++)
      for (let g = h + 1; g < count; g++) {
        const a = holders[h] as number;
        const b = holders[g] as number;
        if (min < Math.min(thetas[a] as number, thetas[b] as number))
          shared[a * n + b] = (shared[a * n + b] as number) + 1;
      }
  }
  return { alone, weight, shared };
}

/**
 * The 95 % margin of a share read from `n` of a sample's `size` ids (drawn without
 * replacement, hence the finite-population factor; 0 when all were read). The
 * variance is floored at 1/n so a share read as 0 or 1 still has a margin.
 */
export function shareMargin(share: number, n: number, size: number): number {
  if (n >= size) return 0;
  if (n === 0) return 1;
  const variance = Math.max(share * (1 - share), 1 / n) / n;
  return 1.96 * Math.sqrt(variance * ((size - n) / Math.max(1, size - 1)));
}
