import { activePricingModel, peerEstimates } from '../derive/pricing.js';
import { AmbiguousHandleError, CreatorNotFoundError } from '../errors.js';
import type { Store } from '../store.js';
import { toCreatorProfile, type CreatorProfile } from './creator-profile.mapper.js';
import * as q from './creator-profile.queries.js';
import type { SearchIndex } from './search-index/search-index.js';

/**
 * The one creator a handle (and platform, when given) names: a 404
 * `creator_not_found` without one, a 409 `ambiguous_handle` naming the platforms
 * when the handle is on several and no platform was given.
 */
export async function resolveHandle(store: Store, handle: string, platform: string | null): Promise<q.HandleMatch> {
  return oneMatch(await q.findByHandle(store, handle, platform), handle, platform);
}

/**
 * As `resolveHandle`, from the handles the search index holds (its data version,
 * which the search service keeps current): no store read.
 */
export function resolveIndexedHandle(index: SearchIndex, handle: string, platform: string | null): q.HandleMatch {
  const all = index.handleMatches(handle);
  return oneMatch(platform === null ? all : all.filter((m) => m.platform === platform), handle, platform);
}

function oneMatch(matches: readonly q.HandleMatch[], handle: string, platform: string | null): q.HandleMatch {
  const match = matches[0];
  if (!match) throw new CreatorNotFoundError(handle, platform);
  if (matches.length > 1)
    throw new AmbiguousHandleError(
      handle,
      matches.map((m) => m.platform),
    );
  return match;
}

/**
 * A handle as stored: `@` and lower case. Accepts `@name`, `name`, any case
 * (the router has already decoded `%40`). Null when it cannot be a handle.
 */
export function normaliseHandle(raw: string): string | null {
  const bare = raw.trim().replace(/^@/, '').toLowerCase();
  return /^[a-z0-9._-]{1,100}$/.test(bare) ? `@${bare}` : null;
}

/**
 * The full profile of (handle, platform?). Without a platform, a handle on
 * several platforms is a 409 `ambiguous_handle` naming them.
 */
export async function getCreatorProfile(
  store: Store,
  handle: string,
  platform: string | null,
): Promise<CreatorProfile> {
  const id = (await resolveHandle(store, handle, platform)).creator_id;
  const [creator, audience, history, posts, content, linked, benchmarks, prices] = await Promise.all([
    q.selectCreator(store, id),
    q.selectAudience(store, id),
    q.selectHistory(store, id),
    q.selectRecentPosts(store, id),
    q.selectContent(store, id),
    q.selectLinkedAccounts(store, id),
    q.selectBenchmarks(store, id),
    q.selectPriceEstimates(store, id),
  ]);
  if (!creator) throw new CreatorNotFoundError(handle, platform);
  return toCreatorProfile(creator, {
    audience,
    history,
    posts,
    content,
    linked,
    benchmarks,
    prices: prices.length > 0 ? prices : await unseenCreatorPrices(store, creator),
  });
}

/**
 * A creator loaded since the newest price fit has no stored estimates: it gets
 * the peer-based ones that model gives it (docs/pricing.md); none before any fit.
 */
async function unseenCreatorPrices(store: Store, creator: Record<string, unknown>): Promise<q.PriceEstimateRow[]> {
  const active = await activePricingModel(store);
  if (!active) return [];
  return peerEstimates(active, {
    followers: Number(creator['followers']),
    engagement_rate: creator['engagement_rate'] === null ? null : Number(creator['engagement_rate']),
    platform: String(creator['platform']),
    niche: String(creator['niche']),
    country: creator['country'] === null ? null : String(creator['country']),
  });
}
