import { AGE_RANGES } from '../creator-taxonomy.js';
import type { DiscoveryData, TermColumn } from './discovery-filters.js';
import type { CategoricalColumn, SearchIndexData } from './search-index.js';
import { type ShareColumn, shareAt } from './share-column.js';
import type { DeltaRow } from './search-delta.js';
import { drain, SlicedBuilds, type Steps } from './sliced-work.js';
import type { TermPostings } from './term-postings.js';

/** The content lists a lookalike compares, with their weight in the content vector (docs/lookalikes.md). */
export const CONTENT_FIELDS: ReadonlyArray<readonly [LookalikeTermColumn, number]> = [
  ['hashtags', 1],
  ['mentions', 1],
  ['caption_words', 0.5],
];
export type LookalikeTermColumn = Extract<TermColumn, 'hashtags' | 'mentions' | 'caption_words'>;
/** The niche's weight: one term per creator, weighted like a hashtag. */
const NICHE_WEIGHT = 1;
/**
 * A term held by more than this share of the creators is left out of the
 * content vectors (a `max_df`): it tells creators apart no better than chance,
 * and its postings are the long ones a search would walk.
 */
export const MAX_DF_SHARE = 0.1;

/**
 * The audience dimensions a lookalike compares, in the order vectors hold them:
 * the ones that tell audiences apart most first, so a candidate that cannot
 * reach the page is left after its first runs (lookalike-search.ts).
 */
export const AUDIENCE_DIMS = ['country', 'language', 'interest', 'gender', 'age'] as const;

/**
 * Content vectors: each creator a binary TF-IDF vector over its niche and its
 * kept hashtags, mentions and caption words (term weight = field weight × ln(N / df)),
 * held as a forward index of term codes (one code space across the columns) and
 * the inverse of its norm; per code, the squared term weight. A cosine is then
 * invNorm(a) · invNorm(b) · Σ over shared codes of weight².
 */
export interface ContentModel {
  /** Where each column's codes start in the shared code space. */
  offsets: Readonly<Record<LookalikeTermColumn, number>>;
  postings: Readonly<Record<LookalikeTermColumn, TermPostings>>;
  /** Squared weight by code (0: left out, too common). */
  weight2: Float32Array;
  /** Per niche code (the categorical column's), its squared weight. */
  nicheWeight2: Float32Array;
  /** Position p's kept codes, ascending: `codes[offsets[p]..offsets[p+1])`. */
  forward: { offsets: Int32Array; codes: Int32Array };
  /** 1 / ‖vector‖ by position (0 without any term). */
  invNorm: Float32Array;
  /** Scratch: a request's per-position sums and its per-code weights (requests run one at a time). */
  acc: Float32Array;
  query: Float32Array;
  /** Scratch: the positions a request's accumulation touched. */
  touched: Int32Array;
}

/**
 * Audience vectors: per creator its shares on every key of the compared
 * dimensions, as 16-bit hundredths of a percent, a forward index by position.
 */
export interface AudienceModel {
  /** code → dimension index (AUDIENCE_DIMS) and key. */
  dimOf: Uint8Array;
  keys: readonly string[];
  codeOf: ReadonlyMap<string, number>;
  /** Position p's codes (ascending) and shares: `codes[offsets[p]..offsets[p+1])`. */
  forward: AudienceForward;
  /** Scratch: the query's share by code. */
  query: Uint16Array;
  /** Per country code, its holders and their shares (hundredths): a request's first bound. */
  countryHolders: ReadonlyMap<number, KeyHolders>;
  /** Scratch: one country's share by position (hundredths), for a request's bound. */
  countryShare: Uint16Array;
  /** Per interest code, its holders and their shares (hundredths): a request's second bound. */
  interestHolders: ReadonlyMap<number, KeyHolders>;
  /** Scratch: one interest's share by position (hundredths), for that bound. */
  interestShare: Uint16Array;
}

/** An audience forward index: per position its codes (ascending) and their shares in hundredths of a percent. */
export interface AudienceForward {
  offsets: Int32Array;
  codes: Uint16Array;
  shares: Uint16Array;
}

/**
 * The positions holding one audience key, ascending, and their shares in hundredths of a percent;
 * `descending` holds the same shares largest first, to count the holders at or above a share.
 */
export interface KeyHolders {
  positions: Int32Array;
  shares: Uint16Array;
  descending: Uint16Array;
}

export interface LookalikeModel {
  size: number;
  content: ContentModel;
  audience: AudienceModel;
}

/** Elements a builder visits between two yields: where a slice of a build can end (sliced-work.ts). */
const STRIDE = 1 << 14;
const MASK = STRIDE - 1;
/** A build's work per turn of the event loop when it runs beside requests (docs/lookalikes.md). */
const LOOKALIKE_SLICE_MS = 10;

/** The vectors of each index base, built once (a second caller joins a build in progress). */
const models = new SlicedBuilds<SearchIndexData, LookalikeModel>(buildModel);

/**
 * The lookalike vectors of an index's base data, built now if they are not yet (finishing a build in
 * progress, not starting another): for callers that cannot wait (tests, tools). The service waits for
 * `prepareLookalikeModel` instead, which never holds the event loop for long.
 */
export function lookalikeModel(data: SearchIndexData): LookalikeModel {
  return models.now(data);
}

/**
 * The lookalike vectors of an index's base data, built once per base (after the index's open or build),
 * then shared by its deltas: built in slices of about `sliceMs` that let the event loop serve requests
 * between them (at 1M creators the whole build is seconds: docs/search.md). A caller arriving during the
 * build waits for it; the vectors are the ones `lookalikeModel` builds at once.
 */
export function prepareLookalikeModel(data: SearchIndexData, sliceMs = LOOKALIKE_SLICE_MS): Promise<LookalikeModel> {
  return models.prepared(data, sliceMs);
}

/** What the vectors are built from: an index's base data, or the parts a writer of index files holds (index-files.ts). */
export interface LookalikeSource {
  size: number;
  niche: Pick<CategoricalColumn, 'codes' | 'dictionary'>;
  discovery: {
    terms: Readonly<Record<LookalikeTermColumn, TermPostings>>;
  } & Pick<DiscoveryData, 'audience' | 'dense' | 'ages'>;
}

function sourceOf(data: SearchIndexData): LookalikeSource {
  return { size: data.ids.length, niche: data.categorical.niche, discovery: data.discovery };
}

function buildModel(data: SearchIndexData): Steps<LookalikeModel> {
  return lookalikeModelSteps(sourceOf(data));
}

/** The vectors of `source`, in steps (sliced-work.ts): the ones `lookalikeModel` builds for the same data. */
export function* lookalikeModelSteps(source: LookalikeSource): Steps<LookalikeModel> {
  const content = yield* buildContent(source);
  const audience = yield* buildAudience(source);
  return { size: source.size, content, audience };
}

/**
 * The lookalike vectors as the index files hold them (index-files.ts), so that a reader opens them instead of
 * building them: the model without its scratch arrays, its key lookup and the term postings it reads (the index's).
 */
export interface StoredLookalikeModel {
  content: Pick<ContentModel, 'offsets' | 'weight2' | 'nicheWeight2' | 'forward' | 'invNorm'>;
  audience: Pick<AudienceModel, 'dimOf' | 'forward' | 'countryHolders' | 'interestHolders'> & { keys: string[] };
}

export function storedLookalikeModel({ content: c, audience: a }: LookalikeModel): StoredLookalikeModel {
  return {
    content: {
      offsets: c.offsets,
      weight2: c.weight2,
      nicheWeight2: c.nicheWeight2,
      forward: c.forward,
      invNorm: c.invNorm,
    },
    audience: {
      dimOf: a.dimOf,
      keys: [...a.keys],
      forward: a.forward,
      countryHolders: a.countryHolders,
      interestHolders: a.interestHolders,
    },
  };
}

/**
 * Takes the vectors of an index's base data once `stored` gives them (a mapped open still checking their
 * sections: index-files.ts); `prepareLookalikeModel` waits for it, and builds them when it gives none. Answers
 * when they are taken (or not).
 */
export function adoptLookalikeModelLater(
  data: SearchIndexData,
  stored: Promise<StoredLookalikeModel | null>,
): Promise<void> {
  const adopted = stored.then((s) => {
    if (s) adoptLookalikeModel(data, s);
  });
  models.await(data, adopted);
  return adopted.catch(() => undefined);
}

/**
 * Takes the vectors of an index's base data as its files hold them, instead of building them; throws when they
 * do not fit the data (the open then refuses the files).
 */
export function adoptLookalikeModel(data: SearchIndexData, stored: StoredLookalikeModel): void {
  const size = data.ids.length;
  const { content: c, audience: a } = stored;
  const terms = data.discovery.terms;
  let vocab = 0;
  for (const [column] of CONTENT_FIELDS) {
    if (c.offsets[column] !== vocab) throw new Error('the lookalike vectors name other term codes');
    vocab += terms[column].terms.length;
  }
  const fits =
    c.weight2.length === vocab &&
    c.nicheWeight2.length === data.categorical.niche.dictionary.length + 1 &&
    c.forward.offsets.length === size + 1 &&
    c.forward.offsets[size] === c.forward.codes.length &&
    c.invNorm.length === size &&
    a.keys.length === a.dimOf.length &&
    a.forward.offsets.length === size + 1 &&
    a.forward.offsets[size] === a.forward.codes.length &&
    a.forward.codes.length === a.forward.shares.length;
  if (!fits) throw new Error('the lookalike vectors do not fit the index');
  models.set(data, {
    size,
    content: {
      ...c,
      postings: Object.fromEntries(
        CONTENT_FIELDS.map(([column]) => [column, terms[column]]),
      ) as ContentModel['postings'],
      acc: new Float32Array(size),
      query: new Float32Array(vocab),
      touched: new Int32Array(size),
    },
    audience: {
      ...a,
      codeOf: new Map(a.keys.map((key, code) => [audienceKey(AUDIENCE_DIMS[a.dimOf[code]!]!, key), code])),
      query: new Uint16Array(a.keys.length),
      countryShare: new Uint16Array(size),
      interestShare: new Uint16Array(size),
    },
  });
}

function* buildContent(data: LookalikeSource): Steps<ContentModel> {
  const size = data.size;
  const terms = data.discovery.terms;
  const offsets = {} as Record<LookalikeTermColumn, number>;
  const postings = {} as Record<LookalikeTermColumn, TermPostings>;
  let vocab = 0;
  for (const [column] of CONTENT_FIELDS) {
    offsets[column] = vocab;
    postings[column] = terms[column];
    vocab += terms[column].terms.length;
  }
  const weight2 = new Float32Array(vocab);
  const counts = new Int32Array(size + 1);
  const maxDf = Math.max(1, Math.floor(size * MAX_DF_SHARE));
  let work = 0;
  for (const [column, fieldWeight] of CONTENT_FIELDS) {
    const t = terms[column];
    for (let c = 0; c < t.terms.length; c++) {
      if (work >= STRIDE) {
        work = 0;
        yield;
      }
      const holders = t.holders(c);
      work += 1 + holders.length;
      if (holders.length === 0 || holders.length > maxDf) continue;
      const w = fieldWeight * Math.log(size / holders.length);
      weight2[offsets[column] + c] = w * w;
      for (let i = 0; i < holders.length; i++) counts[holders[i]! + 1]!++;
    }
  }
  for (let p = 0; p < size; p++) counts[p + 1]! += counts[p]!;
  // the large arrays each in a turn of their own: allocating one of them at 1M takes tens of ms
  yield;
  const fwdCodes = new Int32Array(counts[size]!);
  yield;
  const fill = counts.slice(0, size);
  // columns in code order and codes ascending within each: every position's codes come out ascending
  for (const [column] of CONTENT_FIELDS) {
    const t = terms[column];
    for (let c = 0; c < t.terms.length; c++) {
      if (work >= STRIDE) {
        work = 0;
        yield;
      }
      const code = offsets[column] + c;
      work++;
      if (weight2[code] === 0) continue;
      const holders = t.holders(c);
      work += holders.length;
      for (let i = 0; i < holders.length; i++) fwdCodes[fill[holders[i]!]!++] = code;
    }
  }
  const niche = data.niche;
  const nicheCounts = new Int32Array(niche.dictionary.length + 1);
  for (let p = 0; p < size; p++) nicheCounts[niche.codes[p]!]!++;
  const nicheWeight2 = new Float32Array(niche.dictionary.length + 1);
  for (let k = 1; k < nicheCounts.length; k++) {
    const w = nicheCounts[k]! > 0 ? NICHE_WEIGHT * Math.log(size / nicheCounts[k]!) : 0;
    nicheWeight2[k] = w * w;
  }
  yield;
  const invNorm = new Float32Array(size);
  for (let p = 0; p < size; p++) {
    if ((p & MASK) === MASK) yield;
    let sum = nicheWeight2[niche.codes[p]!]!;
    for (let i = counts[p]!; i < counts[p + 1]!; i++) sum += weight2[fwdCodes[i]!]!;
    invNorm[p] = sum > 0 ? 1 / Math.sqrt(sum) : 0;
  }
  return {
    offsets,
    postings,
    weight2,
    nicheWeight2,
    forward: { offsets: counts, codes: fwdCodes },
    invNorm,
    acc: new Float32Array(size),
    query: new Float32Array(vocab),
    touched: new Int32Array(size),
  };
}

/** One compared audience key: its dimension, its key and its shares (by position, or a list of holders). */
interface ShareSource {
  dim: number;
  key: string;
  column?: ShareColumn;
  list?: { positions: Int32Array; pcts: ShareColumn };
}

function* buildAudience(data: LookalikeSource): Steps<AudienceModel> {
  const size = data.size;
  const { audience, dense, ages } = data.discovery;
  const sources: ShareSource[] = [];
  AUDIENCE_DIMS.forEach((dimension, dim) => {
    if (dimension === 'age') {
      AGE_RANGES.forEach((range, i) => {
        sources.push({ dim, key: range, column: ages[i]! });
      });
      return;
    }
    for (const [key, column] of dense.get(dimension) ?? []) sources.push({ dim, key, column });
    for (const [key, list] of audience.get(dimension) ?? []) sources.push({ dim, key, list });
  });
  sources.sort((a, b) => a.dim - b.dim || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const counts = new Int32Array(size + 1);
  for (const s of sources) yield* eachShare(s, size, (p) => counts[p + 1]!++);
  for (let p = 0; p < size; p++) counts[p + 1]! += counts[p]!;
  yield;
  const codes = new Uint16Array(counts[size]!);
  yield;
  const shares = new Uint16Array(counts[size]!);
  yield;
  const fill = counts.slice(0, size);
  yield;
  for (let code = 0; code < sources.length; code++)
    yield* eachShare(sources[code]!, size, (p, pct) => {
      const at = fill[p]!++;
      codes[at] = code;
      shares[at] = toHundredths(pct);
    });
  const dimOf = Uint8Array.from(sources.map((s) => s.dim));
  const forward = { offsets: counts, codes, shares };
  return {
    dimOf,
    keys: sources.map((s) => s.key),
    codeOf: new Map(sources.map((s, code) => [audienceKey(AUDIENCE_DIMS[s.dim]!, s.key), code])),
    forward,
    query: new Uint16Array(sources.length),
    countryHolders: yield* keyHolderSteps(AUDIENCE_DIMS.indexOf('country'), dimOf, forward),
    countryShare: new Uint16Array(size),
    interestHolders: yield* keyHolderSteps(AUDIENCE_DIMS.indexOf('interest'), dimOf, forward),
    interestShare: new Uint16Array(size),
  };
}

/** Calls `fn` with each holder's position and share (as the SQL's double: share-column.ts). */
function* eachShare(s: ShareSource, size: number, fn: (p: number, pct: number) => void): Steps<void> {
  if (s.column) {
    for (let p = 0; p < size; p++) {
      if ((p & MASK) === MASK) yield;
      const v = shareAt(s.column, p);
      if (v > 0) fn(p, v);
    }
    return;
  }
  const { positions, pcts } = s.list!;
  for (let i = 0; i < positions.length; i++) {
    if ((i & MASK) === MASK) yield;
    const v = shareAt(pcts, i);
    if (v > 0) fn(positions[i]!, v);
  }
}

/** Per code of dimension `dim`, its holders and shares, read off the forward index (one pass to count, one to fill). */
export function keyHolders(dim: number, dimOf: Uint8Array, forward: AudienceForward): Map<number, KeyHolders> {
  return drain(keyHolderSteps(dim, dimOf, forward));
}

function* keyHolderSteps(
  dim: number,
  dimOf: Uint8Array,
  { offsets, codes, shares }: AudienceForward,
): Steps<Map<number, KeyHolders>> {
  const counts = new Int32Array(dimOf.length);
  for (let i = 0; i < codes.length; i++) {
    if ((i & MASK) === MASK) yield;
    if (dimOf[codes[i]!] === dim) counts[codes[i]!]!++;
  }
  const out = new Map<number, KeyHolders>();
  counts.forEach((n, code) => {
    if (n > 0)
      out.set(code, { positions: new Int32Array(n), shares: new Uint16Array(n), descending: new Uint16Array(0) });
  });
  const fill = new Int32Array(dimOf.length);
  const size = offsets.length - 1;
  for (let p = 0; p < size; p++) {
    if ((p & MASK) === MASK) yield;
    for (let i = offsets[p]!; i < offsets[p + 1]!; i++) {
      const code = codes[i]!;
      if (dimOf[code] !== dim) continue;
      const h = out.get(code)!;
      h.positions[fill[code]!] = p;
      h.shares[fill[code]!++] = shares[i]!;
    }
  }
  for (const h of out.values()) h.descending = yield* descendingSteps(h.shares);
  return out;
}

/** Shares (0–10,000) largest first, by counting: the array a numeric sort and reverse give, in slices. */
function* descendingSteps(shares: Uint16Array): Steps<Uint16Array> {
  const counts = new Int32Array(10_001);
  for (let i = 0; i < shares.length; i++) {
    if ((i & MASK) === MASK) yield;
    counts[shares[i]!]!++;
  }
  const out = new Uint16Array(shares.length);
  let at = 0;
  for (let v = 10_000; v >= 0; v--) {
    out.fill(v, at, at + counts[v]!);
    at += counts[v]!;
  }
  return out;
}

/** A share as hundredths of a percent, 0–10,000. */
export function toHundredths(pct: number): number {
  return Math.max(0, Math.min(10_000, Math.round(pct * 100)));
}

export function audienceKey(dimension: string, key: string): string {
  return `${dimension}\u0000${key}`;
}

/** A creator's vectors as sparse lists: a base position's, or a changed creator's built from its current row. */
export interface LookalikeProfile {
  /** Kept content codes, ascending. */
  content: Int32Array;
  nicheCode: number;
  invNorm: number;
  /** Audience codes and shares (codes -1: a key the base does not know; it counts in its dimension's total only). */
  audienceCodes: Int32Array;
  audienceDims: Uint8Array;
  audienceShares: Uint16Array;
}

/** A base position's profile. */
export function baseProfile(model: LookalikeModel, data: SearchIndexData, p: number): LookalikeProfile {
  const { content: c, audience: a } = model;
  const from = a.forward.offsets[p]!;
  const to = a.forward.offsets[p + 1]!;
  const codes = Int32Array.from(a.forward.codes.subarray(from, to));
  return {
    content: c.forward.codes.subarray(c.forward.offsets[p]!, c.forward.offsets[p + 1]!),
    nicheCode: data.categorical.niche.codes[p]!,
    invNorm: c.invNorm[p]!,
    audienceCodes: codes,
    audienceDims: Uint8Array.from(codes, (code) => a.dimOf[code]!),
    audienceShares: a.forward.shares.slice(from, to),
  };
}

/** A changed creator's profile, from its current row, weighted with the base's document frequencies. */
export function deltaProfile(model: LookalikeModel, data: SearchIndexData, row: DeltaRow): LookalikeProfile {
  const { content: c, audience: a } = model;
  const content: number[] = [];
  for (const [column] of CONTENT_FIELDS) {
    for (const term of row[column]) {
      const local = c.postings[column].find(term);
      const code = local < 0 ? -1 : c.offsets[column] + local;
      if (code >= 0 && c.weight2[code]! > 0) content.push(code);
    }
  }
  content.sort((x, y) => x - y);
  const unique = Int32Array.from(new Set(content));
  const nicheCode = data.categorical.niche.dictionary.indexOf(row.niche) + 1;
  let sum = c.nicheWeight2[nicheCode] ?? 0;
  for (const code of unique) sum += c.weight2[code]!;
  const codes: number[] = [];
  const dims: number[] = [];
  const shares: number[] = [];
  AUDIENCE_DIMS.forEach((dimension, dim) => {
    for (const [key, pct] of row.audience.get(dimension) ?? []) {
      if (!(pct > 0)) continue;
      codes.push(a.codeOf.get(audienceKey(dimension, key)) ?? -1);
      dims.push(dim);
      shares.push(toHundredths(pct));
    }
  });
  return {
    content: unique,
    nicheCode,
    invNorm: sum > 0 ? 1 / Math.sqrt(sum) : 0,
    audienceCodes: Int32Array.from(codes),
    audienceDims: Uint8Array.from(dims),
    audienceShares: Uint16Array.from(shares),
  };
}

/** The term a content code stands for, and its column. */
export function termOf(model: ContentModel, code: number): { column: LookalikeTermColumn; term: string } {
  for (const [column] of CONTENT_FIELDS) {
    const local = code - model.offsets[column];
    if (local >= 0 && local < model.postings[column].terms.length)
      return { column, term: model.postings[column].terms[local]! };
  }
  throw new RangeError(`no content code ${code}`);
}
