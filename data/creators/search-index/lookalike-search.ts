import { Bitset } from './bitset.js';
import {
  AUDIENCE_DIMS,
  termOf,
  toHundredths,
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
    const hi = targetPosition < 0 ? 0 : targetPosition + WARM_WINDOW;
    for (let i = 0; i < n; i++) {
      const p = base ? base[i]! : i;
      if (p >= lo && p < hi) offer(p);
    }
    const sources = scorer.sources(top.bar(), niche);
    if (sources) {
      // every candidate outside these lists scores below the bar: only they are read
      const wanted = base ? Bitset.of(model.size, base) : null;
      const seen = new Bitset(model.size);
      const visit = (p: number): void => {
        if (seen.has(p)) return;
        seen.add(p);
        if ((p < lo || p >= hi) && (!wanted || wanted.has(p))) offer(p);
      };
      for (const list of sources.lists) for (let i = 0; i < list.length; i++) visit(list[i]!);
      for (const spans of sources.spans)
        for (let k = 0; k < spans.length; k += 2) for (let p = spans[k]!; p < spans[k + 1]!; p++) visit(p);
    } else {
      for (let i = 0; i < n; i++) {
        const p = base ? base[i]! : i;
        if (p < lo || p >= hi) offer(p);
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
    if (this.useAudience && candidates > 0) this.spreadTopCountry();
    if (!this.useContent || candidates === 0) return;
    let postings = 0;
    for (const code of t.content) postings += this.holders(code).length;
    const forward = (c.fwdCodes.length / Math.max(1, this.model.size)) * candidates;
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
   * the target's largest country at most `countryBound(that position)`.
   */
  sources(bar: number, niche: NicheColumn): { lists: Int32Array[]; spans: Int32Array[] } | null {
    const t = this.request.target;
    const content: { lists: Int32Array[]; spans: Int32Array[] } | null =
      this.accumulated && niche.runs
        ? {
            lists: [this.model.content.touched.subarray(0, this.touchedCount)],
            spans: t.nicheCode > 0 ? [niche.runs[t.nicheCode]!] : [],
          }
        : null;
    if (this.request.basis === 'content') return content;
    if (bar <= 0 || this.topCountry < 0) return null;
    const outside = this.nonHolderBound();
    const holders = this.model.audience.countryHolders.get(this.topCountry)!.positions;
    if (holders.length * 2 > this.model.size) return null;
    if (this.request.basis === 'audience') return outside < bar - 1e-4 ? { lists: [holders], spans: [] } : null;
    if (!content || outside / 2 >= bar - 1e-4) return null;
    return { lists: [...content.lists, holders], spans: content.spans };
  }

  /** `countryBound` of a position without the target's largest country. */
  private nonHolderBound(): number {
    const total = this.targetTotals[0]!;
    return ((total - this.topCountryShare) / total + this.dims - 1) / this.dims;
  }

  /** Writes the shares of the target's largest country by position (its holders list), for `countryBound`. */
  private spreadTopCountry(): void {
    const { audience: a } = this.model;
    const t = this.request.target;
    let best = -1;
    for (let i = 0; i < t.audienceCodes.length; i++) {
      const code = t.audienceCodes[i]!;
      if (t.audienceDims[i] !== 0 || code < 0 || !a.countryHolders.has(code)) continue;
      if (best < 0 || t.audienceShares[i]! > t.audienceShares[best]!) best = i;
    }
    if (best < 0) return;
    this.topCountry = t.audienceCodes[best]!;
    this.topCountryShare = t.audienceShares[best]!;
    const { positions, pcts } = a.countryHolders.get(this.topCountry)!;
    for (let i = 0; i < positions.length; i++) a.countryShare[positions[i]!] = toHundredths(pcts[i]!);
  }

  /** Clears what `prepare` wrote into the shared scratch arrays. */
  release(): void {
    const { content: c, audience: a } = this.model;
    const t = this.request.target;
    if (this.topCountry >= 0) {
      const { positions } = a.countryHolders.get(this.topCountry)!;
      for (let i = 0; i < positions.length; i++) a.countryShare[positions[i]!] = 0;
    }
    for (const code of t.content) c.query[code] = 0;
    for (const code of t.audienceCodes) if (code >= 0) a.query[code] = 0;
    if (this.accumulated) c.acc.fill(0);
  }

  /**
   * A base position's similarity; 0 when it certainly stays below `bar` (the
   * page's lowest so far): its audience is then left after the first dimensions
   * that show it cannot reach the bar.
   */
  base(p: number, bar: number): number {
    const content = this.useContent ? this.baseContent(p) : 0;
    if (!this.useAudience) return content < bar - 1e-4 ? 0 : this.combine(content, 0);
    // the audience similarity the candidate needs to reach the bar (less a rounding step)
    const need = (this.request.basis === 'both' ? 2 * bar - content : bar) - 1e-4;
    if (need > 1 || (need > 0 && this.countryBound(p) < need)) return 0;
    const audience = this.baseAudience(p, need);
    return audience < 0 ? 0 : this.combine(content, audience);
  }

  /**
   * An upper bound of a position's audience similarity from its share of the
   * target's largest country alone: the other country keys can share at most
   * the rest of the target's country total, every other dimension at most 1.
   */
  private countryBound(p: number): number {
    if (this.topCountry < 0) return 1;
    const b = this.model.audience.countryShare[p]!;
    const a = this.topCountryShare;
    const total = this.targetTotals[0]!;
    return ((Math.min(a, b) + total - a) / total + this.dims - 1) / this.dims;
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
    else for (let i = c.fwdOffsets[p]!; i < c.fwdOffsets[p + 1]!; i++) raw += c.query[c.fwdCodes[i]!]!;
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
    const { offsets, codes, shares, dimOf, query: q } = this.model.audience;
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
