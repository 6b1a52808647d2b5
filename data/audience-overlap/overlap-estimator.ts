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

/** The hashes of `s` below `theta`: a uniform sample of the sample, the same cut for every set (theta sketches). */
function below(s: FollowerSketch, theta: number): readonly number[] {
  if (theta === Number.POSITIVE_INFINITY) return s.hashes;
  let hi = s.hashes.length;
  let lo = 0;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((s.hashes[mid] ?? 0) < theta) lo = mid + 1;
    else hi = mid;
  }
  return s.hashes.slice(0, lo);
}

/** How many values two ascending arrays share. */
function sharedCount(x: readonly number[], y: readonly number[]): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < x.length && j < y.length) {
    const a = x[i] as number;
    const b = y[j] as number;
    if (a === b) {
      n++;
      i++;
      j++;
    } else if (a < b) i++;
    else j++;
  }
  return n;
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
  const theta = Math.min(...members.map((m) => thetaOf(m.sketch)));
  const kept = members.map((m) => below(m.sketch, theta));
  const { alone, weight } = membershipTotals(kept);
  let uniqueFollowers = 0;
  const uniqueShares: number[] = [];
  let margin = 0;
  members.forEach((m, i) => {
    const n = kept[i]?.length ?? 0;
    const share = n === 0 ? 0 : (alone[i] ?? 0) / n;
    uniqueShares.push(share);
    uniqueFollowers += n === 0 ? m.followers : (m.followers * (weight[i] ?? 0)) / n;
    margin = Math.max(margin, shareMargin(share, n, m.sketch.sampleSize));
  });
  const pairs: OverlapEstimate['pairs'] = [];
  for (let a = 0; a < members.length; a++) {
    for (let b = a + 1; b < members.length; b++) {
      pairs.push(pairOverlap(members[a] as OverlapMember, members[b] as OverlapMember, a, b));
    }
  }
  return { uniqueFollowers, uniqueShares, pairs, margin, exact: theta === Number.POSITIVE_INFINITY };
}

/**
 * Per member, how many of its kept hashes no other member holds (`alone`) and the
 * sum over its kept hashes of 1 / (the members holding it) (`weight`), by one
 * merge of the ascending lists: the same hash is at the head of every list
 * holding it at once.
 */
function membershipTotals(kept: ReadonlyArray<readonly number[]>): { alone: number[]; weight: number[] } {
  const at = kept.map(() => 0);
  const alone = kept.map(() => 0);
  const weight = kept.map(() => 0);
  const holders: number[] = [];
  for (;;) {
    let min = Number.POSITIVE_INFINITY;
    for (let i = 0; i < kept.length; i++) {
      const h = kept[i]?.[at[i] as number];
      if (h !== undefined && h < min) min = h;
    }
    if (min === Number.POSITIVE_INFINITY) break;
    holders.length = 0;
    for (let i = 0; i < kept.length; i++) {
      if (kept[i]?.[at[i] as number] === min) {
        holders.push(i);
        at[i] = (at[i] as number) + 1;
      }
    }
    for (const i of holders) {
      if (holders.length === 1) alone[i] = (alone[i] as number) + 1;
      weight[i] = (weight[i] as number) + 1 / holders.length;
    }
  }
  return { alone, weight };
}

function pairOverlap(ma: OverlapMember, mb: OverlapMember, a: number, b: number): OverlapEstimate['pairs'][number] {
  const theta = Math.min(thetaOf(ma.sketch), thetaOf(mb.sketch));
  const x = below(ma.sketch, theta);
  const y = below(mb.sketch, theta);
  const shared = sharedCount(x, y);
  return { a, b, ofA: x.length === 0 ? 0 : shared / x.length, ofB: y.length === 0 ? 0 : shared / y.length };
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
