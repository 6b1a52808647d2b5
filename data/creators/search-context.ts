/**
 * What a search needs besides its filters, fixed once per request so that the
 * index, the SQL and an export answer the same: the request's time and the
 * members of the lists it excludes.
 */
export interface SearchContext {
  /** The request's time, epoch ms: `last_posted_days_max` counts back from it. */
  now: number;
  /** The creators on the `exclude_list` lists, read from the service state; null when the search names none. */
  excluded: Exclusion | null;
}

/** The creators on the excluded lists, as sorted, distinct creator ids, and a key naming the lists' versions. */
export class Exclusion {
  constructor(
    /** The list ids with their versions (`updated_at` and member count): changes when a member joins or leaves. */
    readonly key: string,
    /** Ascending, distinct. */
    readonly creatorIds: Int32Array,
  ) {}

  /** Whether the creator is on one of the lists (binary search). */
  has(creatorId: number): boolean {
    const ids = this.creatorIds;
    let lo = 0;
    let hi = ids.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = ids[mid]!;
      if (v === creatorId) return true;
      if (v < creatorId) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  /** In a cache key, the lists' versions stand for the members. */
  toJSON(): string {
    return this.key;
  }
}

/** A context at `now` without excluded lists. */
export function searchContext(now: number, excluded: Exclusion | null = null): SearchContext {
  return { now, excluded };
}

const DAY_MS = 86_400_000;

/** `last_posted_days_max` as the earliest newest-post time that passes, epoch µs (the store's TIMESTAMP precision). */
export function postedSinceUs(daysMax: number, now: number): number {
  return (Math.trunc(now) - daysMax * DAY_MS) * 1000;
}
