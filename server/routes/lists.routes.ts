import Router from '@koa/router';
import { z } from 'zod';
import { normaliseHandle } from '../../data/creators/creator-profile.service.js';
import { ValidationError } from '../../data/errors.js';
import { takePage } from '../../data/paging.js';
import { addMembers, listMembers, removeMember } from '../../data/lists/list-member.service.js';
import {
  createList,
  deleteList,
  getList,
  listLists,
  updateList,
  type ListLimits,
} from '../../data/lists/list.service.js';
import { PLATFORMS } from '../../data/reference/taxonomy.js';
import { timestampSchema } from '../../data/timestamps.js';
import { defineRoute } from '../http/define-route.js';
import { ID_KEY, keysetPage } from '../http/keyset-page.js';
import { cursorParam, limitParam, pageOf } from '../http/pagination.js';
import type { RouteKit } from '../http/route-kit.js';
import { principalOf } from '../middleware/auth.middleware.js';
import { CreatorItemSchema } from './creators.schemas.js';

const ListSchema = z.object({
  id: z.string().describe('lst_…'),
  name: z.string(),
  description: z.string().nullable(),
  creators_count: z.number().int(),
  created_at: timestampSchema('When the list was created'),
  updated_at: timestampSchema('When the list or its members last changed'),
});
const MemberSchema = CreatorItemSchema.extend({ added_at: timestampSchema('When the creator was added') });
const Handle = z
  .string()
  .min(1)
  .max(101)
  .refine((s) => normaliseHandle(s) !== null, 'must be a handle like @name (letters, digits, . _ -)')
  .transform((s) => normaliseHandle(s) ?? s)
  .describe('`@name` or `name`, any case');
const Platform = z.enum(PLATFORMS);

const PageQuery = z.object({ limit: limitParam, cursor: cursorParam });
/** A member's keyset: when it was added (epoch µs), then its creator id. */
const MEMBER_KEY = ['number', 'number'] as const;
const IdParams = z.object({ id: z.string().regex(/^lst_[0-9a-z]{1,40}$/, 'a list id (lst_…)') });
const MemberParams = IdParams.extend({ handle: Handle });
const MemberQuery = z.object({
  platform: Platform.optional().describe('Needed when the list holds the handle on several platforms'),
});
const CreateBody = z.object({
  name: z.string().trim().min(1).max(100),
  description: z.string().max(1000).nullable().optional(),
});
const PatchBody = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  description: z.string().max(1000).nullable().optional().describe('null clears it'),
});
const AddBody = z.object({
  creators: z
    .array(z.strictObject({ handle: Handle, platform: Platform.optional() }))
    .min(1)
    .max(1000)
    .describe('1 to 1,000 creators'),
});
const AddResult = z.object({
  added: z.number().int().describe('Creators newly put on the list'),
  already_present: z.number().int().describe('Requested creators that were on the list already'),
  not_found: z
    .array(
      z.object({
        handle: z.string(),
        platform: Platform.nullable(),
        reason: z.enum(['not_found', 'ambiguous_handle']),
        platforms: z.array(Platform).optional().describe('ambiguous_handle only: the platforms the handle exists on'),
      }),
    )
    .describe('Requested creators not added, and why'),
});

/** The lists endpoints. Every operation is scoped to the caller's account. */
export function listsRoutes(kit: RouteKit): Router {
  const router = new Router();
  const limitsOf = async (plan: string): Promise<ListLimits> => {
    const l = await kit.plans.limits(plan);
    return { lists: l.lists, creatorsPerList: l.creatorsPerList };
  };

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/lists',
      operationId: 'listLists',
      tags: ['lists'],
      scope: 'read',
      summary: 'Your lists, oldest first',
      query: PageQuery,
      responses: { 200: { description: 'A page of lists', schema: pageOf(ListSchema) } },
    },
    async (ctx, { query }) => {
      const accountId = principalOf(ctx).accountId;
      ctx.body = await keysetPage(
        kit.cursors,
        query,
        { scope: `lists:${accountId}`, shape: ID_KEY },
        async (after, limit) =>
          takePage(await listLists(kit.state, accountId, after?.[0] ?? null, limit + 1), limit, (l) => [l.id]),
      );
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/lists',
      operationId: 'createList',
      tags: ['lists'],
      scope: 'lists:write',
      summary: 'Create a list',
      body: CreateBody,
      idempotent: true,
      errors: ['limit_exceeded'],
      description:
        'The plan caps the number of lists (entry 50, enterprise unlimited): past it, 403 `limit_exceeded`. ' +
        'Names need not be unique: a list is known by its id, so two lists may share a name (send an `Idempotency-Key` to make a retried create safe).',
      responses: {
        201: { description: 'Created', schema: ListSchema, headers: { Location: { description: 'The new list' } } },
      },
    },
    async (ctx, { body }) => {
      const principal = principalOf(ctx);
      const created = await createList(kit.state, principal.accountId, body, await limitsOf(principal.plan));
      ctx.status = 201;
      ctx.set('Location', `/v1/lists/${created.id}`);
      ctx.body = created;
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/lists/{id}',
      operationId: 'getList',
      tags: ['lists'],
      scope: 'read',
      summary: 'One of your lists',
      params: IdParams,
      errors: ['not_found'],
      responses: { 200: { description: 'The list', schema: ListSchema } },
    },
    async (ctx, { params }) => {
      ctx.body = await getList(kit.state, principalOf(ctx).accountId, params.id);
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'patch',
      path: '/v1/lists/{id}',
      operationId: 'updateList',
      tags: ['lists'],
      scope: 'lists:write',
      summary: 'Rename or re-describe a list',
      params: IdParams,
      body: PatchBody,
      errors: ['not_found'],
      description: 'Fields left out stay as they are; at least one is required.',
      responses: { 200: { description: 'The updated list', schema: ListSchema } },
    },
    async (ctx, { params, body }) => {
      if (body.name === undefined && body.description === undefined) {
        throw ValidationError.field('body', 'give name and/or description');
      }
      ctx.body = await updateList(kit.state, principalOf(ctx).accountId, params.id, body);
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'delete',
      path: '/v1/lists/{id}',
      operationId: 'deleteList',
      tags: ['lists'],
      scope: 'lists:write',
      summary: 'Delete a list and its memberships',
      params: IdParams,
      errors: ['not_found'],
      responses: { 204: { description: 'Deleted' } },
    },
    async (ctx, { params }) => {
      await deleteList(kit.state, principalOf(ctx).accountId, params.id);
      ctx.status = 204;
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/lists/{id}/creators',
      operationId: 'listListCreators',
      tags: ['lists'],
      scope: 'read',
      summary: 'Creators on a list, in the order they were added',
      params: IdParams,
      query: PageQuery,
      errors: ['not_found'],
      responses: { 200: { description: 'A page of Creator items with added_at', schema: pageOf(MemberSchema) } },
    },
    async (ctx, { params, query }) => {
      const accountId = principalOf(ctx).accountId;
      ctx.body = await keysetPage(
        kit.cursors,
        query,
        { scope: `list-members:${accountId}:${params.id}`, shape: MEMBER_KEY },
        (after, limit) => listMembers(kit.state, kit.store, accountId, params.id, after, limit),
      );
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/lists/{id}/creators',
      operationId: 'addListCreators',
      tags: ['lists'],
      scope: 'lists:write',
      summary: 'Add up to 1,000 creators to a list',
      params: IdParams,
      body: AddBody,
      idempotent: true,
      errors: ['not_found', 'limit_exceeded'],
      description:
        'Idempotent: creators already on the list count as `already_present`, so a retry adds nothing twice. ' +
        'A handle that matches no creator is listed in `not_found` with reason `not_found`; a handle given without ' +
        '`platform` that exists on several platforms is not guessed — it is listed with reason `ambiguous_handle` and its ' +
        '`platforms`, and the rest of the batch is still added. If the new members would take the list past the plan’s ' +
        'creators-per-list cap (entry 5,000, enterprise 100,000), nothing is added: 403 `limit_exceeded`.',
      responses: { 200: { description: 'What happened to each requested creator', schema: AddResult } },
    },
    async (ctx, { params, body }) => {
      const principal = principalOf(ctx);
      ctx.body = await addMembers(
        kit.state,
        kit.store,
        principal.accountId,
        params.id,
        body.creators,
        await limitsOf(principal.plan),
      );
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'delete',
      path: '/v1/lists/{id}/creators/{handle}',
      operationId: 'removeListCreator',
      tags: ['lists'],
      scope: 'lists:write',
      summary: 'Take a creator off a list',
      params: MemberParams,
      query: MemberQuery,
      errors: ['not_found', 'ambiguous_handle'],
      description:
        'When the list holds the handle on several platforms and no `platform` is given: 409 `ambiguous_handle`.',
      responses: { 204: { description: 'Removed' } },
    },
    async (ctx, { params, query }) => {
      await removeMember(
        kit.state,
        kit.store,
        principalOf(ctx).accountId,
        params.id,
        params.handle,
        query.platform ?? null,
      );
      ctx.status = 204;
    },
  );
  return router;
}
