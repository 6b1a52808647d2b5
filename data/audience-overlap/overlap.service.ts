import type { HandleMatch } from '../creators/creator-profile.queries.js';
import { resolveHandle, resolveIndexedHandle } from '../creators/creator-profile.service.js';
import type { SearchIndex } from '../creators/search-index/search-index.js';
import { DomainError, ValidationError } from '../errors.js';
import type { Store } from '../store.js';
import {
  SKETCH_K,
  type SketchRow,
  selectSketchHashes,
  selectSketchKeys,
  selectFollowerCounts,
} from './follower-sketch.queries.js';
import { estimateOverlap, type OverlapEstimate, type OverlapMember } from './overlap-estimator.js';
import { sketchSlotsOf } from './sketch-slots.js';

/** A creator named in an overlap request (the handle as stored: `@` and lower case). */
export interface CreatorRef {
  handle: string;
  platform: string | null;
}

interface Named {
  handle: string;
  platform: string;
}

/** The answer of POST /v1/audience-overlap (docs/audience-overlap.md). */
export interface AudienceOverlap {
  total_followers: number;
  unique_followers: number;
  unique_pct: number;
  overlap_pct: number;
  creators: Array<Named & { followers: number; unique_pct: number; overlapping_pct: number }>;
  pairs: Array<{ a: Named; b: Named; overlap_pct_of_a: number; overlap_pct_of_b: number }>;
  method: 'exact_sample' | 'kmv_sketch';
  error_margin_pct: number;
}

/** Some creators of an overlap request have no follower sample, so their audience cannot be compared. */
export class FollowerSampleMissingError extends DomainError {
  override name = 'FollowerSampleMissingError';
  constructor(missing: readonly Named[]) {
    const names = missing.map((m) => `${m.handle} on ${m.platform}`).join(', ');
    super(
      'follower_sample_missing',
      `no follower sample on record for ${names}; load one (follower_samples, docs/data-formats.md) or leave ${missing.length === 1 ? 'it' : 'them'} out`,
      { extensions: { creators: missing.map((m) => ({ handle: m.handle, platform: m.platform })) } },
    );
  }
}

/**
 * How much of the audiences of 2–10 creators is shared, from their sketches:
 * unknown handles are a 404 and ambiguous ones a 409 (the first in request
 * order), the same creator named twice a 400 naming the second, creators
 * without a sample one 422 naming them all. With the search index of the
 * current data (`index`), the handles and follower counts are read from it and
 * the store is asked for the sketches alone; without it, all from the store.
 */
export async function audienceOverlap(
  store: Store,
  refs: readonly CreatorRef[],
  index: SearchIndex | null = null,
): Promise<AudienceOverlap> {
  const found = index
    ? refs.map((ref) => resolveIndexedHandle(index, ref.handle, ref.platform))
    : await lookUp(store, refs);
  const named: Array<Named & { creatorId: number }> = [];
  for (const [i, match] of found.entries()) {
    const twice = named.findIndex((n) => n.creatorId === match.creator_id);
    if (twice >= 0) throw ValidationError.field(`creators.${i}`, `names the same creator as creators.${twice}`);
    named.push({ handle: refs[i]!.handle, platform: match.platform, creatorId: match.creator_id });
  }
  const ids = named.map((n) => n.creatorId);
  const rows = index ? await indexedSketches(store, index, ids) : await storedSketches(store, ids);
  const missing = named.filter((n) => !hasSample(rows.get(n.creatorId)));
  if (missing.length > 0) throw new FollowerSampleMissingError(missing);
  const members: OverlapMember[] = named.map((n) => toMember(rows.get(n.creatorId) as SketchRow));
  return toAudienceOverlap(named, members, estimateOverlap(members));
}

/** The handles looked up in the store together; the first failure in request order is the one answered. */
async function lookUp(store: Store, refs: readonly CreatorRef[]): Promise<HandleMatch[]> {
  const settled = await Promise.allSettled(refs.map((ref) => resolveHandle(store, ref.handle, ref.platform)));
  return settled.map((result) => {
    if (result.status === 'rejected') throw result.reason;
    return result.value;
  });
}

async function storedSketches(store: Store, ids: readonly number[]): Promise<Map<number, SketchRow>> {
  // two lookups, not a join: a join reads every stored sketch to build its hash table
  const [creators, sketches] = await Promise.all([selectFollowerCounts(store, ids), readSketches(store, ids)]);
  return new Map(
    creators.map((c): [number, SketchRow] => {
      const sketch = sketches.get(c.creator_id);
      return [c.creator_id, { ...c, sample_size: sketch?.sample_size ?? null, hashes: sketch?.hashes ?? null }];
    }),
  );
}

/**
 * The sketches of the given creators as the store holds them now: from their slots
 * beside the store where a slot holds the stored sample size and checksum (read
 * from the store's small columns), the rest from the store's lists, which are then
 * written to their slots (docs/audience-overlap.md, "The sketch slots").
 */
export async function readSketches(
  store: Store,
  ids: readonly number[],
): Promise<Map<number, { sample_size: number; hashes: number[] }>> {
  const slots = await sketchSlotsOf(store);
  if (!slots) return selectSketchHashes(store, ids);
  // a slots file that cannot be read (removed under the process, a failing disk) leaves the store to answer alone
  const keys = await selectSketchKeys(store, ids);
  const found = await slots.read(keys).catch(() => new Map<number, { sample_size: number; hashes: number[] }>());
  const rest = ids.filter((id) => !found.has(id));
  if (rest.length === 0) return found;
  const stored = await selectSketchHashes(store, rest);
  for (const [id, sketch] of stored) found.set(id, sketch);
  // a slot not written only means the next read comes from the store again
  await slots.write(stored).catch(() => undefined);
  return found;
}

/** The follower counts from the index (the data version its handles are), the sketches from the store. */
async function indexedSketches(
  store: Store,
  index: SearchIndex,
  ids: readonly number[],
): Promise<Map<number, SketchRow>> {
  const sketches = await readSketches(store, ids);
  return new Map(
    ids.map((id): [number, SketchRow] => {
      const sketch = sketches.get(id);
      const followers = index.item(id)?.followers ?? 0;
      return [
        id,
        { creator_id: id, followers, sample_size: sketch?.sample_size ?? null, hashes: sketch?.hashes ?? null },
      ];
    }),
  );
}

function hasSample(row: SketchRow | undefined): boolean {
  return row !== undefined && row.hashes !== null && (row.sample_size ?? 0) > 0;
}

function toMember(row: SketchRow): OverlapMember {
  return { followers: Number(row.followers), sketch: { sampleSize: row.sample_size ?? 0, hashes: row.hashes ?? [] } };
}

const pct = (share: number): number => Math.round(share * 10_000) / 100;

/** The estimate in the API's terms: percent 0–100 to two decimals, creators and pairs in request order. */
export function toAudienceOverlap(
  named: readonly Named[],
  members: readonly OverlapMember[],
  estimate: OverlapEstimate,
): AudienceOverlap {
  const total = members.reduce((s, m) => s + m.followers, 0);
  const unique = Math.round(estimate.uniqueFollowers);
  const uniquePct = total === 0 ? 0 : pct(unique / total);
  const who = (i: number): Named => ({ handle: named[i]?.handle ?? '', platform: named[i]?.platform ?? '' });
  return {
    total_followers: total,
    unique_followers: unique,
    unique_pct: uniquePct,
    overlap_pct: Math.round((100 - uniquePct) * 100) / 100,
    creators: named.map((_, i) => {
      const share = estimate.uniqueShares[i] ?? 0;
      return {
        ...who(i),
        followers: members[i]?.followers ?? 0,
        unique_pct: pct(share),
        overlapping_pct: pct(1 - share),
      };
    }),
    pairs: estimate.pairs.map((p) => ({
      a: who(p.a),
      b: who(p.b),
      overlap_pct_of_a: pct(p.ofA),
      overlap_pct_of_b: pct(p.ofB),
    })),
    method: estimate.exact ? 'exact_sample' : 'kmv_sketch',
    error_margin_pct: Math.round(estimate.margin * 1000) / 10,
  };
}

/** The sketch size, for the API's description of the method. */
export const OVERLAP_SKETCH_SIZE = SKETCH_K;
