import { CreatorNotFoundError, UnavailableError } from '../errors.js';
import type { Store } from '../store.js';
import { resolveHandle, resolveIndexedHandle } from './creator-profile.service.js';
import type { CreatorSearchService } from './creator-search.service.js';
import type { CreatorSearchFilters } from './creator-search.types.js';
import type { LookalikeBasis, LookalikeKeyset } from './search-index/lookalike-search.js';
import { prepareLookalikeModel } from './search-index/lookalike-model.js';
import { searchLookalikes, type LookalikePage } from './search-index/lookalikes.js';

export type { LookalikePage } from './search-index/lookalikes.js';

export interface LookalikeRequest {
  /** Normalised handle (`@name`) and optional platform. */
  handle: string;
  platform: string | null;
  basis: LookalikeBasis;
  filters: CreatorSearchFilters;
  after: LookalikeKeyset | null;
  limit: number;
  /** The caller's account: whose lists `exclude_list` may name. */
  accountId: string | null;
}

/** How long a request waits for an index build in progress before answering 503. */
const INDEX_WAIT_MS = 2_000;
/** What the 503 tells the caller to wait (seconds). */
const RETRY_AFTER_S = 5;

/**
 * GET /v1/creators/{handle}/lookalikes (docs/lookalikes.md): the handle is
 * resolved as the profile's is (404, 409), the filters checked as a search's,
 * and the answer comes from the search index only — there is no SQL path: while
 * the index is built for new data (a few seconds; a delta refresh far less) the
 * answer is a 503 `unavailable` with `Retry-After`.
 */
export async function findLookalikes(
  store: Store,
  search: CreatorSearchService,
  request: LookalikeRequest,
): Promise<LookalikePage> {
  const context = await search.contextOf(request.filters, request.accountId);
  // a current index names the creator from memory; otherwise the store does, before the wait for a build
  const ready = await search.currentIndex(0);
  const { creator_id } = ready
    ? resolveIndexedHandle(ready, request.handle, request.platform)
    : await resolveHandle(store, request.handle, request.platform);
  const index = ready ?? (await search.currentIndex(INDEX_WAIT_MS));
  if (!index)
    throw new UnavailableError('the lookalike index is being built for new data; retry shortly', {
      headers: { 'Retry-After': String(RETRY_AFTER_S) },
    });
  // the vectors of a base opened or built a moment ago may still be in the making: wait for that build
  await prepareLookalikeModel(index.lookalikeView().data);
  const page = searchLookalikes(index, {
    creatorId: creator_id,
    basis: request.basis,
    filters: request.filters,
    context,
    after: request.after,
    limit: request.limit,
  });
  if (!page) throw new CreatorNotFoundError(request.handle, request.platform);
  return page;
}
