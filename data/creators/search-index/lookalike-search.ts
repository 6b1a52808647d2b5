import { Bitset } from './bitset.js';
import {
  AUDIENCE_DIMS,
  type KeyHolders,
  termOf,
  type LookalikeModel,
  type LookalikeProfile,
  type LookalikeTermColumn,
} from './lookalike-model.js';

/** What a lookalike ranks by (docs/lookalikes.md). */
export type LookalikeBasis = 'content' | 'audience' | 'both';

/** A keyset position: the last match's similarity and creator id. */
export type LookalikeKeyset = readonly [number, number];

export interface LookalikeMatch {
  creator_id: number;
  /** 0–1, rounded to 4 decimals (what is ranked, returned and put in cursors). */
  similarity: number;
}

/** The candidates: base positions (null: all of them), the dead base positions to skip, the changed creators. */
export interface LookalikeCandidates {
  base: Int32Array | null;
  live: Bitset | null;
  delta: ReadonlyArray<{ creatorId: number; profile: LookalikeProfile }>;
}

export interface LookalikeRequest {
  basis: LookalikeBasis;
  /** The target creator: its vectors and id (never in its own answer). */
  target: LookalikeProfile;
  targetId: number;
  after: LookalikeKeyset | null;
  /** How many matches to return at most. */
  limit: number;
}

/**
 * The `limit` most similar candidates after the keyset, most similar first,
 * ties by creator id; candidates with nothing in common (similarity 0) are
 * never matches. Content cosines are summed from the target's term postings
 * when that reads fewer entries than the candidates' own term lists; audience
 * similarity is computed per candidate from its shares.
 */
export function rankLookalikes(
  model: LookalikeModel,
  ids: Int32Array,
  niche: NicheColumn,
  candidates: LookalikeCandidates,
  request: LookalikeRequest,
  targetPosition = -1,
): LookalikeMatch[] {
  const scorer = new Scorer(model, niche.codes, request);
  try {
    const top = new TopK(request.limit, request.after);
    const { base, live } = candidates;
    const n = base ? base.length : model.size;
    scorer.prepare(n);
    const offer = (p: number): void => {
      if (live && !live.has(p)) return;
      const id = ids[p]!;
      if (id !== request.targetId) top.offer(scorer.base(p, top.bar()), id);
    };
    // the target's neighbours first (positions cluster by platform, niche and country): the page's bar rises early
    const lo = targetPosition < 0 ? 0 : Math.max(0, targetPosition - WARM_WINDOW);
    const hi = targetPosition < 0 ? 0 : Math.min(model.size, targetPosition + WARM_WINDOW);
    // the filters' candidates as a set: the window and the lists below are read against it, never by walking them
    const wanted = base ? Bitset.of(model.size, base) : null;
    for (let p = lo; p < hi; p++) if (!wanted || wanted.has(p)) offer(p);
    const seen = new Bitset(model.size);
    const visit = (p: number): void => {
      if (seen.has(p)) return;
      seen.add(p);
      if ((p < lo || p >= hi) && (!wanted || wanted.has(p))) offer(p);
    };
    let sources = scorer.sources(top.bar(), niche);
    if (!sources) {
      // the window left the bar too low to narrow the read (its neighbours may be filtered out): the likeliest
      // candidates next, then the narrowing is tried again
      for (const list of scorer.likely()) for (let i = 0; i < list.length; i++) visit(list[i]!);
      sources = scorer.sources(top.bar(), niche);
    }
    if (sources) {
      // every candidate outside these lists scores below the bar: only they are read
      for (const list of sources.lists) for (let i = 0; i < list.length; i++) visit(list[i]!);
      if (sources.gated) {
        // the holders in position order (the arrays are read in order), those below the share skipped unread
        const { holders, min } = sources.gated;
        for (let i = 0; i < holders.positions.length; i++) if (holders.shares[i]! >= min) visit(holders.positions[i]!);
      }
      for (const spans of sources.spans)
        for (let k = 0; k < spans.length; k += 2) for (let p = spans[k]!; p < spans[k + 1]!; p++) visit(p);
    } else {
      for (let i = 0; i < n; i++) {
        const p = base ? base[i]! : i;
        if ((p < lo || p >= hi) && !seen.has(p)) offer(p);
      }
    }
    for (const { creatorId, profile } of candidates.delta) {
      if (creatorId !== request.targetId) top.offer(scorer.profile(profile), creatorId);
    }
    return top.matches();
  } finally {
    scorer.release();
  }
}

/** The index's niche column: codes by position and, per code, its runs of positions (null when not clustered). */
export interface NicheColumn {
  codes: ArrayLike<number>;
  runs: ReadonlyArray<Int32Array> | null;
}

/**
 * What a request reads once its bar is known: lists and spans of positions, and the holders of
 * one audience key whose share is at least `min` (`count` of them).
 */
interface Sources {
  lists: Int32Array[];
  spans: Int32Array[];
  gated?: Gated;
}

interface Gated {
  holders: KeyHolders;
  min: number;
  count: number;
}

/** Positions on each side of the target scored first. */
const WARM_WINDOW = 4_096;

/** The content cosine and audience similarity of two profiles (the reasons' figures). */
export function compareProfiles(
  model: LookalikeModel,
  a: LookalikeProfile,
  b: LookalikeProfile,
): { content: number; audience: number } {
  const scorer = new Scorer(model, [], { basis: 'both', target: a, targetId: -1, after: null, limit: 0 });
  try {
    scorer.prepare(0);
    return { content: scorer.contentOf(b), audience: scorer.audienceOf(b) };
  } finally {
    scorer.release();
  }
}

/** Rounds a similarity to the 4 decimals that are ranked and returned. */
export function roundSimilarity(x: number): number {
  return Math.round(Math.min(1, Math.max(0, x)) * 10_000) / 10_000;
}

/** One request's scoring state: the target's weights spread over the model's scratch arrays. */
class Scorer {
  private readonly useContent: boolean;
  private readonly useAudience: boolean;
  private accumulated = false;
  private touchedCount = 0;
  private readonly targetTotals = new Float64Array(AUDIENCE_DIMS.length);
  private readonly totals = new Float64Array(AUDIENCE_DIMS.length);
  private readonly shared = new Float64Array(AUDIENCE_DIMS.length);
  private dims = 0;
  /** The target's largest country (audience code) and its share; -1 without country shares or a holders list. */
  private topCountry = -1;
  private topCountryShare = 0;
  /** The target's largest interest (audience code) and its share; -1 without interest shares. */
  private topInterest = -1;
  private topInterestShare = 0;

  constructor(
    private readonly model: LookalikeModel,
    private readonly nicheCodes: ArrayLike<number>,
    private readonly request: LookalikeRequest,
  ) {
    this.useContent = request.basis !== 'audience';
    this.useAudience = request.basis !== 'content';
  }

  /** Spreads the target's weights; accumulates content from its postings when cheaper than `candidates` forward reads. */
  prepare(candidates: number): void {
    const { content: c, audience: a } = this.model;
    const t = this.request.target;
    for (let i = 0; i < t.content.length; i++) c.query[t.content[i]!] = c.weight2[t.content[i]!]!;
    for (let i = 0; i < t.audienceCodes.length; i++) {
      const code = t.audienceCodes[i]!;
      if (code >= 0) a.query[code] = t.audienceShares[i]!;
      this.targetTotals[t.audienceDims[i]!]! += t.audienceShares[i]!;
    }
    this.dims = this.targetTotals.reduce((n, v) => n + (v > 0 ? 1 : 0), 0);
    if (this.useAudience && candidates > 0) {
      this.spreadTopCountry();
      this.spreadTopInterest();
    }
    if (!this.useContent || candidates === 0) return;
    let postings = 0;
    for (const code of t.content) postings += this.holderCount(code);
    const forward = (c.forward.codes.length / Math.max(1, this.model.size)) * candidates;
    if (postings >= forward) return;
    let touched = 0;
    for (const code of t.content) {
      const w2 = c.weight2[code]!;
      const holders = this.holders(code);
      for (let i = 0; i < holders.length; i++) {
        const h = holders[i]!;
        if (c.acc[h] === 0) c.touched[touched++] = h;
        c.acc[h]! += w2;
      }
    }
    this.touchedCount = touched;
    this.accumulated = true;
  }

  /**
   * Lists holding every candidate that could still reach `bar`, or null when
   * they would be most of the store: a candidate with no content term of the
   * target's and another niche has a content similarity of 0; one without
   * the target's largest country at most `audienceBound(that position)`.
   */
  sources(bar: number, niche: NicheColumn): Sources | null {
    const t = this.request.target;
    const content: { lists: Int32Array[]; spans: Int32Array[] } | null =
      this.accumulated && niche.runs
        ? {
            lists: [this.model.content.touched.subarray(0, this.touchedCount)],
            spans: t.nicheCode > 0 ? [niche.runs[t.nicheCode]!] : [],
          }
        : null;
    if (this.request.basis === 'content') return content;
    if (bar <= 0) return null;
    const holders = this.requiredHolders(bar);
    if (!holders || holders.count * 2 > this.model.size) return null;
    if (this.request.basis === 'audience') return { lists: [], spans: [], gated: holders };
    if (!content) return null;
    return { ...content, gated: holders };
  }

  /**
   * Candidates likelier than most to be on the page, read before the rest when the
   * window left the bar low: on `both`, the creators sharing a content term with the
   * target (when summed from its postings); on `audience`, the holders of its largest
   * interest or country, the shorter list.
   */
  likely(): Int32Array[] {
    const a = this.model.audience;
    if (this.request.basis === 'both' && this.accumulated)
      return [this.model.content.touched.subarray(0, this.touchedCount)];
    if (this.request.basis !== 'audience') return [];
    const lists = [
      this.topInterest >= 0 ? a.interestHolders.get(this.topInterest)!.positions : null,
      this.topCountry >= 0 ? a.countryHolders.get(this.topCountry)!.positions : null,
    ].filter((l): l is Int32Array => l !== null && l.length * 2 <= this.model.size);
    lists.sort((x, y) => x.length - y.length);
    return lists.slice(0, 1);
  }

  /**
   * The fewest holders every candidate reaching `bar` without content (on `both`: one
   * outside the content lists, whose content scores 0) must be among: of the holders of
   * the target's largest country, and of its largest interest, those whose share of
   * that key lets `audienceBound` reach the bar; null when a creator without either
   * key could still reach it.
   */
  private requiredHolders(bar: number): Gated | null {
    const a = this.model.audience;
    const need = this.request.basis === 'both' ? 2 * bar - 2e-4 : bar - 1e-4;
    // what one bounded dimension must score when every other gives its most, 1
    const least = need * this.dims - (this.dims - 1);
    let best: Gated | null = null;
    const consider = (holders: KeyHolders, share: number, total: number): void => {
      // keyBound(b) = (min(share, b) + total − share) / total ≥ least ⟺ b ≥ least × total − total + share
      const min = least * total - total + share;
      if (!(min > 0)) return;
      const count = countAtLeast(holders.descending, min);
      if (!best || count < best.count) best = { holders, min, count };
    };
    if (this.topCountry >= 0)
      consider(a.countryHolders.get(this.topCountry)!, this.topCountryShare, this.targetTotals[0]!);
    if (this.topInterest >= 0)
      consider(a.interestHolders.get(this.topInterest)!, this.topInterestShare, this.targetTotals[INTEREST]!);
    return best;
  }

  /** Writes the shares of the target's largest country by position (its holders list), for `audienceBound`. */
  private spreadTopCountry(): void {
    const { audience: a } = this.model;
    const top = this.spreadLargest(0, a.countryHolders, a.countryShare);
    if (!top) return;
    this.topCountry = top.code;
    this.topCountryShare = top.share;
  }

  /** Writes the shares of the target's largest interest by position (its holders), for `audienceBound`. */
  private spreadTopInterest(): void {
    const { audience: a } = this.model;
    const top = this.spreadLargest(INTEREST, a.interestHolders, a.interestShare);
    if (!top) return;
    this.topInterest = top.code;
    this.topInterestShare = top.share;
  }

  /**
   * The target's largest key of dimension `dim` that has a holders list, and its
   * share; writes every holder's share of that key by position into `into`.
   * Null when the target has no such key.
   */
  private spreadLargest(
    dim: number,
    holders: ReadonlyMap<number, KeyHolders>,
    into: Uint16Array,
  ): { code: number; share: number } | null {
    const t = this.request.target;
    let best = -1;
    for (let i = 0; i < t.audienceCodes.length; i++) {
      const code = t.audienceCodes[i]!;
      if (t.audienceDims[i] !== dim || code < 0 || !holders.has(code)) continue;
      if (best < 0 || t.audienceShares[i]! > t.audienceShares[best]!) best = i;
    }
    if (best < 0) return null;
    const code = t.audienceCodes[best]!;
    const { positions, shares } = holders.get(code)!;
    for (let i = 0; i < positions.length; i++) into[positions[i]!] = shares[i]!;
    return { code, share: t.audienceShares[best]! };
  }

  /** Clears what `prepare` wrote into the shared scratch arrays. */
  release(): void {
    const { content: c, audience: a } = this.model;
    const t = this.request.target;
    if (this.topCountry >= 0) {
      const { positions } = a.countryHolders.get(this.topCountry)!;
      for (let i = 0; i < positions.length; i++) a.countryShare[positions[i]!] = 0;
    }
    if (this.topInterest >= 0) {
      const { positions } = a.interestHolders.get(this.topInterest)!;
      for (let i = 0; i < positions.length; i++) a.interestShare[positions[i]!] = 0;
    }
    for (const code of t.content) c.query[code] = 0;
    for (const code of t.audienceCodes) if (code >= 0) a.query[code] = 0;
    // only the sums the accumulation touched are cleared: a million-long fill per request costs more than the request
    if (this.accumulated) for (let i = 0; i < this.touchedCount; i++) c.acc[c.touched[i]!] = 0;
  }

  /**
   * A base position's similarity; 0 when it certainly stays below `bar` (the
   * page's lowest so far): its audience is then left after the first dimensions
   * that show it cannot reach the bar.
   */
  base(p: number, bar: number): number {
    // on `both`, a candidate whose audience cannot reach the bar even beside a perfect content score is left before
    // its content is summed (a cosine is at most 1; the margin covers its float rounding and the 4-decimal rounding)
    if (this.request.basis === 'both' && bar > 0) {
      const floor = 2 * bar - 1 - 2e-3;
      if (floor > 0 && this.audienceBound(p) < floor) return 0;
    }
    const content = this.useContent ? this.baseContent(p) : 0;
    if (!this.useAudience) return content < bar - 1e-4 ? 0 : this.combine(content, 0);
    // the audience similarity the candidate needs to reach the bar (less a rounding step)
    const need = (this.request.basis === 'both' ? 2 * bar - content : bar) - 1e-4;
    if (need > 1 || (need > 0 && this.audienceBound(p) < need)) return 0;
    const audience = this.baseAudience(p, need);
    return audience < 0 ? 0 : this.combine(content, audience);
  }

  /**
   * An upper bound of a position's audience similarity from its shares of the
   * target's largest country and largest interest alone: in each of the two
   * dimensions the other keys can share at most the rest of the target's total
   * (`keyBound`), every other dimension at most 1. Exact arithmetic on
   * hundredths; the caller leaves a rounding step of room.
   */
  private audienceBound(p: number): number {
    const a = this.model.audience;
    let sum = this.dims;
    if (this.topCountry >= 0) sum += keyBound(a.countryShare[p]!, this.topCountryShare, this.targetTotals[0]!) - 1;
    if (this.topInterest >= 0)
      sum += keyBound(a.interestShare[p]!, this.topInterestShare, this.targetTotals[INTEREST]!) - 1;
    return sum / this.dims;
  }

  /** A changed creator's similarity. */
  profile(b: LookalikeProfile): number {
    return this.combine(this.useContent ? this.contentOf(b) : 0, this.useAudience ? this.audienceOf(b) : 0);
  }

  contentOf(b: LookalikeProfile): number {
    const { content: c } = this.model;
    const t = this.request.target;
    let raw = 0;
    for (let i = 0; i < b.content.length; i++) raw += c.query[b.content[i]!]!;
    if (b.nicheCode > 0 && b.nicheCode === t.nicheCode) raw += c.nicheWeight2[t.nicheCode]!;
    return raw * b.invNorm * t.invNorm;
  }

  audienceOf(b: LookalikeProfile): number {
    if (this.dims === 0) return 0;
    const q = this.model.audience.query;
    this.totals.fill(0);
    this.shared.fill(0);
    for (let i = 0; i < b.audienceCodes.length; i++) {
      const d = b.audienceDims[i]!;
      const v = b.audienceShares[i]!;
      this.totals[d]! += v;
      const code = b.audienceCodes[i]!;
      if (code >= 0) this.shared[d]! += Math.min(v, q[code]!);
    }
    return this.intersection();
  }

  private baseContent(p: number): number {
    const c = this.model.content;
    const t = this.request.target;
    let raw = 0;
    if (this.accumulated) raw = c.acc[p]!;
    else for (let i = c.forward.offsets[p]!; i < c.forward.offsets[p + 1]!; i++) raw += c.query[c.forward.codes[i]!]!;
    if (this.nicheCodes[p] === t.nicheCode && t.nicheCode > 0) raw += c.nicheWeight2[t.nicheCode]!;
    return raw * c.invNorm[p]! * t.invNorm;
  }

  /**
   * As `audienceOf`, reading the forward index: a position's codes ascend, so
   * each dimension's shares are one run. After each run, when even a perfect
   * score on the dimensions left cannot reach `need`, answers -1.
   */
  private baseAudience(p: number, need: number): number {
    if (this.dims === 0) return 0;
    const { dimOf, query: q } = this.model.audience;
    const { offsets, codes, shares } = this.model.audience.forward;
    const targetTotals = this.targetTotals;
    const best = need * this.dims;
    let sum = 0;
    let left = this.dims;
    let d = -1;
    let total = 0;
    let shared = 0;
    for (let i = offsets[p]!, end = offsets[p + 1]!; i < end; i++) {
      const code = codes[i]!;
      const dim = dimOf[code]!;
      if (dim !== d) {
        if (d >= 0 && targetTotals[d]! > 0) {
          sum += dimensionScore(shared, total, targetTotals[d]!);
          if (sum + --left < best) return -1;
        }
        d = dim;
        total = 0;
        shared = 0;
      }
      const v = shares[i]!;
      const w = q[code]!;
      total += v;
      shared += Math.min(v, w);
    }
    if (d >= 0) sum += dimensionScore(shared, total, targetTotals[d]!);
    return sum / this.dims;
  }

  /** The mean over the target's dimensions of Σ min(a, b) / max(Σ a, Σ b) (histogram intersection). */
  private intersection(): number {
    let sum = 0;
    for (let d = 0; d < AUDIENCE_DIMS.length; d++) {
      const t = this.targetTotals[d]!;
      if (t > 0) sum += this.shared[d]! / Math.max(t, this.totals[d]!);
    }
    return sum / this.dims;
  }

  private combine(content: number, audience: number): number {
    const basis = this.request.basis;
    return roundSimilarity(basis === 'content' ? content : basis === 'audience' ? audience : (content + audience) / 2);
  }

  private holders(code: number): Int32Array {
    const { column, local } = columnOf(this.model, code);
    return this.model.content.postings[column].holders(local);
  }

  /** How many creators hold content term `code`, without decoding its postings. */
  private holderCount(code: number): number {
    const { column, local } = columnOf(this.model, code);
    return this.model.content.postings[column].count(local);
  }
}

/** How many of `shares` (descending) are at least `min`. */
function countAtLeast(shares: Uint16Array, min: number): number {
  let lo = 0;
  let hi = shares.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (shares[mid]! >= min) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The audience dimension whose largest key gives the second bound (after country). */
const INTEREST = AUDIENCE_DIMS.indexOf('interest');

/**
 * At most one dimension's histogram intersection, from the candidate's share `b` of the
 * target's largest key (share `a` of the target's `total`) alone: the other keys share at most `total − a`.
 */
function keyBound(b: number, a: number, total: number): number {
  return (Math.min(a, b) + total - a) / total;
}

/** One dimension's histogram intersection (0 when the target has no shares there). */
function dimensionScore(shared: number, total: number, targetTotal: number): number {
  return targetTotal > 0 ? shared / Math.max(total, targetTotal) : 0;
}

function columnOf(model: LookalikeModel, code: number): { column: LookalikeTermColumn; local: number } {
  const { column, term } = termOf(model.content, code);
  return { column, local: model.content.postings[column].find(term) };
}

/** The best `limit` (similarity, id) pairs after a keyset: kept sorted in typed arrays, most lose after one comparison. */
class TopK {
  private readonly sims: Float64Array;
  private readonly ids: Float64Array;
  private n = 0;

  constructor(
    private readonly limit: number,
    private readonly after: LookalikeKeyset | null,
  ) {
    this.sims = new Float64Array(limit);
    this.ids = new Float64Array(limit);
  }

  /** The lowest similarity on a full page (a candidate below it cannot enter); -1 while the page has room. */
  bar(): number {
    return this.n === this.limit && this.limit > 0 ? this.sims[this.limit - 1]! : -1;
  }

  offer(sim: number, id: number): void {
    if (!(sim > 0) || this.limit === 0) return;
    const after = this.after;
    if (after && !(sim < after[0] || (sim === after[0] && id > after[1]))) return;
    const { sims, ids, limit } = this;
    if (this.n === limit && !better(sim, id, sims[limit - 1]!, ids[limit - 1]!)) return;
    let at = this.n < limit ? this.n++ : limit - 1;
    while (at > 0 && better(sim, id, sims[at - 1]!, ids[at - 1]!)) {
      sims[at] = sims[at - 1]!;
      ids[at] = ids[at - 1]!;
      at--;
    }
    sims[at] = sim;
    ids[at] = id;
  }

  matches(): LookalikeMatch[] {
    return Array.from({ length: this.n }, (_, i) => ({ creator_id: this.ids[i]!, similarity: this.sims[i]! }));
  }
}

function better(sa: number, ia: number, sb: number, ib: number): boolean {
  return sa === sb ? ia < ib : sa > sb;
}
