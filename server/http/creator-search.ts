import { CreatorSearchService } from '../../data/creators/creator-search.service.js';
import type { RouteKit } from './route-kit.js';

/**
 * The app's one creator search service: searches, lookalikes and lookalike exports
 * share its index (built once per data version, about a gigabyte at a million
 * creators), so no routes module builds a second one.
 */
export function newCreatorSearch(kit: RouteKit): CreatorSearchService {
  return new CreatorSearchService(kit.store, {
    cacheTtlMs: kit.tuning.searchCacheTtlMs,
    track: (w) => kit.track(w),
    index: kit.tuning.searchIndex,
    prepareLookalikes: kit.tuning.prepareLookalikes,
    state: kit.state,
    onIndexBuilt: ({ ok, kind, ms, creators, changed, error }) => {
      if (!ok) kit.logger.warn({ err: error, kind }, 'search index refresh failed; searches use SQL meanwhile');
      else if (kind === 'build') kit.logger.info({ creators, ms: Math.round(ms) }, 'search index built');
      else if (kind === 'open') kit.logger.info({ creators, ms: Math.round(ms) }, 'search index opened from its files');
      else kit.logger.debug({ creators, changed, ms: Math.round(ms) }, 'search index brought up to date');
    },
  });
}
