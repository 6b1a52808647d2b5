import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import { getCreatorProfile, normaliseHandle } from '../../data/creators/creator-profile.service.js';
import { findLookalikes } from '../../data/creators/lookalike.service.js';
import type { CreatorSearchFilters } from '../../data/creators/creator-search.queries.js';
import { toSearchFilters, toSort } from '../../data/creators/search-filters.js';
import type { KeyedPage } from '../../data/paging.js';
import { ValidationError } from '../../data/errors.js';
import { fingerprint } from '../http/cursor.js';
import { defineRoute } from '../http/define-route.js';
import { keysetPage, type CursorPage, type KeyOf, type PageQuery } from '../http/keyset-page.js';
import type { RouteKit } from '../http/route-kit.js';
import { principalOf } from '../middleware/auth.middleware.js';
import { ProfileParams, ProfileQuery, ProfileSchema, SearchQuery, SearchResponse } from './creators.schemas.js';
import { LookalikesQuery, LookalikesResponse } from './lookalikes.schemas.js';

/** GET /v1/creators/search, GET /v1/creators/{handle} and GET /v1/creators/{handle}/lookalikes. */
export function creatorsRoutes(kit: RouteKit): Router {
  const router = new Router();
  const search = kit.creatorSearch();
  kit.onInvalidate(() => search.invalidate());
  // A cluster API replica is not ready before its first index build ends: until then every search runs on SQL,
  // an order of magnitude slower at a million creators, behind a balancer that would already send it traffic.
  // Later refreshes (new data) leave it ready, saying so. The build starts with the replica, not at the first search.
  // With index files beside the store, any process opens them at start and is ready once it has (docs/search.md).
  if (kit.config.cluster || search.hasIndexFiles()) {
    void search.indexReadiness(0).catch(() => undefined);
    kit.addReadinessCheck(async (waitMs) => {
      const index = await search.indexReadiness(waitMs);
      if (index === 'first-build')
        return {
          ready: false,
          reason: 'The search index is being built; searches would run on the slower SQL fallback.',
        };
      return index === 'stale' ? { ready: true, note: { search: 'fallback' } } : { ready: true };
    });
  }
  kit.openapi.addSchema('CreatorItem', SearchResponse.shape.creators.element);

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/creators/search',
      operationId: 'searchCreators',
      tags: ['creators'],
      scope: 'read',
      summary: 'Search creators',
      query: SearchQuery,
      description:
        'Filters combine with AND; comma lists within one filter with OR. `results` is the total matching the filters.',
      responses: { 200: { description: 'A page of matching creators', schema: SearchResponse } },
    },
    async (ctx, { query }) => {
      const { sort: sortParam, limit, cursor, ...rest } = query;
      const filters = toSearchFilters(rest);
      const sort = toSort(sortParam);
      const scope = `search:${sortParam}`;
      const page = await creatorsPage(kit, ctx, { limit, cursor, scope, filters }, async (at) => {
        const result = await search.search({ filters, sort, ...at });
        return { results: result.results, data: result.creators, next: result.next };
      });
      ctx.body = { results: page.results, creators: page.data, next_cursor: page.next_cursor };
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/creators/{handle}',
      operationId: 'getCreator',
      tags: ['creators'],
      scope: 'read',
      summary: 'A creator’s full profile',
      params: ProfileParams,
      query: ProfileQuery,
      errors: ['creator_not_found', 'ambiguous_handle'],
      description: 'Supports `If-None-Match`: an unchanged profile answers 304.',
      responses: {
        200: {
          description: 'The profile',
          schema: ProfileSchema,
          headers: { ETag: { description: 'Entity tag of this representation' } },
        },
        304: { description: 'Not modified since the ETag you sent' },
      },
    },
    async (ctx, { params, query }) => {
      const handle = normaliseHandle(params.handle);
      if (!handle) throw ValidationError.param('handle', 'must be a handle like @name (letters, digits, . _ -)');
      const profile = await getCreatorProfile(kit.store, handle, query.platform ?? null);
      sendWithEtag(ctx, JSON.stringify(profile));
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/creators/{handle}/lookalikes',
      operationId: 'getCreatorLookalikes',
      tags: ['creators'],
      scope: 'read',
      summary: 'Creators like this one, with the reasons',
      params: ProfileParams,
      query: LookalikesQuery,
      errors: ['creator_not_found', 'ambiguous_handle', 'unavailable'],
      description:
        'Ranks creators by content similarity (TF-IDF cosine over niche, hashtags, mentions and caption words), audience similarity (histogram intersection of the audience shares by country, age, gender, language and interest, averaged over the dimensions) or both (the mean of the two); every search parameter but `platform` narrows the matches. Most similar first, ties by creator; the creator itself and creators with nothing in common are never matches. Answered from the search index only: while the index is built for new data (seconds) the answer is 503 `unavailable` with `Retry-After`, never a slower SQL answer. Method and quality: docs/lookalikes.md.',
      responses: { 200: { description: 'The creator and a page of its lookalikes', schema: LookalikesResponse } },
    },
    async (ctx, { params, query }) => {
      const handle = normaliseHandle(params.handle);
      if (!handle) throw ValidationError.param('handle', 'must be a handle like @name (letters, digits, . _ -)');
      const { platform, basis, limit, cursor, ...rest } = query;
      const filters = toSearchFilters(rest);
      const scope = `lookalikes:${handle}:${platform ?? ''}:${basis}`;
      const page = await creatorsPage(kit, ctx, { limit, cursor, scope, filters }, async (at) => {
        const found = await findLookalikes(kit.store, search, {
          handle,
          platform: platform ?? null,
          basis,
          filters,
          ...at,
        });
        return { creator: found.creator, data: found.creators, next: found.next };
      });
      ctx.body = { creator: page.creator, creators: page.data, next_cursor: page.next_cursor };
    },
  );
  return router;
}

/** A search cursor's keyset: the sort value of the last creator, then its id (`SearchKeyset`). */
const SEARCH_KEY = ['number', 'number'] as const;

/** Where a page of creators found with the search's filters starts: the page, what its cursors are bound to. */
interface CreatorsPageQuery extends PageQuery {
  /** The endpoint and every parameter but the filters that changes the rows. */
  scope: string;
  filters: CreatorSearchFilters;
}

/** Where `fetch` reads a page from: the keyset it starts after (null: the first page), its size, the caller's account. */
interface CreatorsPageAt {
  after: KeyOf<typeof SEARCH_KEY> | null;
  limit: number;
  accountId: string;
}

/**
 * A page of creators found with the search's filters (a search, a creator's lookalikes): keyed by sort value
 * and id, its cursors bound to the scope and the filters, each page fetched for the caller's account.
 */
function creatorsPage<P extends KeyedPage<unknown, Readonly<KeyOf<typeof SEARCH_KEY>>>>(
  kit: RouteKit,
  ctx: Context,
  query: CreatorsPageQuery,
  fetch: (at: CreatorsPageAt) => Promise<P>,
): Promise<CursorPage<P>> {
  const keyset = { scope: `${query.scope}:${fingerprint(query.filters)}`, shape: SEARCH_KEY };
  const { accountId } = principalOf(ctx);
  return keysetPage(kit.cursors, query, keyset, (after, limit) => fetch({ after, limit, accountId }));
}

/** A strong ETag over the body; 304 when the caller already has it. */
function sendWithEtag(ctx: Context, body: string): void {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'private, no-cache');
  const given = ctx.get('If-None-Match');
  if (
    given &&
    (given.trim() === '*' ||
      given
        .split(',')
        .map((t) => t.trim().replace(/^W\//, ''))
        .includes(etag))
  ) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/json';
  ctx.body = body;
}
