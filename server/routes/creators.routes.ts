import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { z } from 'zod';
import { getCreatorProfile, normaliseHandle } from '../../data/creators/creator-profile.service.js';
import type { CreatorSearchFilters, CreatorSort } from '../../data/creators/creator-search.queries.js';
import { CreatorSearchService, type SearchKeyset } from '../../data/creators/creator-search.service.js';
import type { SortKey } from '../../data/creators/creator-taxonomy.js';
import { ValidationError } from '../../data/errors.js';
import { fingerprint } from '../http/cursor.js';
import { defineRoute } from '../http/define-route.js';
import type { RouteKit } from '../http/route-kit.js';
import { ProfileParams, ProfileQuery, ProfileSchema, SearchQuery, SearchResponse } from './creators.schemas.js';

/** GET /v1/creators/search and GET /v1/creators/{handle}. */
export function creatorsRoutes(kit: RouteKit): Router {
  const router = new Router();
  const search = new CreatorSearchService(kit.store, { cacheTtlMs: kit.tuning.searchCacheTtlMs, track: (w) => kit.track(w) });
  kit.onInvalidate(() => search.invalidate());
  kit.openapi.addSchema('CreatorItem', SearchResponse.shape.creators.element);

  defineRoute(kit, router, {
    method: 'get', path: '/v1/creators/search', operationId: 'searchCreators', tags: ['creators'], scope: 'read',
    summary: 'Search creators', query: SearchQuery,
    description: 'Filters combine with AND; comma lists within one filter with OR. `results` is the total matching the filters.',
    responses: { 200: { description: 'A page of matching creators', schema: SearchResponse } },
  }, async (ctx, { query }) => {
    const { sort: sortParam, limit, cursor, ...rest } = query;
    const filters = toFilters(rest);
    const sort: CreatorSort = { key: sortParam.replace(/^-/, '') as SortKey, descending: sortParam.startsWith('-') };
    const scope = `search:${sortParam}:${fingerprint(filters)}`;
    const after = cursor ? toKeyset(kit.cursors.decode(scope, cursor)) : null;
    const result = await search.search({ filters, sort, after, limit });
    ctx.body = {
      results: result.results, creators: result.creators,
      next_cursor: result.next ? kit.cursors.encode(scope, result.next) : null,
    };
  });

  defineRoute(kit, router, {
    method: 'get', path: '/v1/creators/{handle}', operationId: 'getCreator', tags: ['creators'], scope: 'read',
    summary: 'A creator’s full profile', params: ProfileParams, query: ProfileQuery,
    errors: ['creator_not_found', 'ambiguous_handle'],
    description: 'Supports `If-None-Match`: an unchanged profile answers 304.',
    responses: {
      200: { description: 'The profile', schema: ProfileSchema, headers: { ETag: { description: 'Entity tag of this representation' } } },
      304: { description: 'Not modified since the ETag you sent' },
    },
  }, async (ctx, { params, query }) => {
    const handle = normaliseHandle(params.handle);
    if (!handle) throw ValidationError.param('handle', 'must be a handle like @name (letters, digits, . _ -)');
    const profile = await getCreatorProfile(kit.store, handle, query.platform ?? null);
    sendWithEtag(ctx, JSON.stringify(profile));
  });
  return router;
}

type FilterParams = Omit<z.output<typeof SearchQuery>, 'sort' | 'limit' | 'cursor'>;

/** Query parameters → service filters (q split into lower-case words). Undefined members are left out. */
function toFilters(p: FilterParams): CreatorSearchFilters {
  const { q, city, ...rest } = p;
  const filters: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) if (v !== undefined) filters[k] = v;
  if (city !== undefined) filters['city'] = city.toLowerCase();
  if (q !== undefined) filters['q'] = [...new Set(q.toLowerCase().split(/\s+/).filter((w) => w.length > 0))];
  return filters as CreatorSearchFilters;
}

function toKeyset(values: readonly unknown[]): SearchKeyset {
  const [sortValue, creatorId] = values;
  if (values.length !== 2 || typeof sortValue !== 'number' || typeof creatorId !== 'number') {
    throw ValidationError.param('cursor', 'not a cursor issued for this endpoint and these parameters');
  }
  return [sortValue, creatorId];
}

/** A strong ETag over the body; 304 when the caller already has it. */
function sendWithEtag(ctx: Context, body: string): void {
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'private, no-cache');
  const given = ctx.get('If-None-Match');
  if (given && (given.trim() === '*' || given.split(',').map((t) => t.trim().replace(/^W\//, '')).includes(etag))) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'application/json';
  ctx.body = body;
}
