import Router from '@koa/router';
import { z } from 'zod';
import { listReveals, revealContacts } from '../../data/contacts/contact.service.js';
import { normaliseHandle } from '../../data/creators/creator-profile.service.js';
import { ValidationError } from '../../data/errors.js';
import { takePage } from '../../data/paging.js';
import { PLATFORMS } from '../../data/reference/taxonomy.js';
import { timestampSchema } from '../../data/timestamps.js';
import { defineRoute } from '../http/define-route.js';
import { ID_KEY, keysetPage } from '../http/keyset-page.js';
import { cursorParam, limitParam, pageOf } from '../http/pagination.js';
import type { RouteKit } from '../http/route-kit.js';
import { principalOf } from '../middleware/auth.middleware.js';
import { ProfileParams, ProfileQuery } from './creators.schemas.js';

const REVEAL_ID = 'rev_… — the entry of this reveal in GET /v1/contacts/reveals';
const ContactsSchema = z.object({
  handle: z.string(),
  platform: z.enum(PLATFORMS),
  email: z.string().nullable().describe('null when only a website is on record'),
  website: z.string().nullable().describe('null when only an email is on record'),
  reveal_id: z.string().describe(REVEAL_ID),
  revealed_at: timestampSchema('When this reveal was made'),
});
const RevealSchema = z.object({
  id: z.string().describe('rev_…'),
  key_id: z.string().describe('The key that made the reveal'),
  handle: z.string(),
  platform: z.enum(PLATFORMS),
  fields: z.array(z.enum(['email', 'website'])).describe('What the reveal answered (never the values themselves)'),
  revealed_at: timestampSchema('When the reveal was made'),
});
const RevealsQuery = z.object({ limit: limitParam, cursor: cursorParam });

const CONTACTS_DESCRIPTION =
  'Contact details are revealed only here: profiles, searches and exports carry `has_contact` alone. ' +
  'The `contacts:read` scope comes with the enterprise plan (a plan without it cuts it from every key of the account, so the ' +
  'key answers 403 `insufficient_scope`); owner keys hold it, other keys only when it is named at creation. ' +
  "Each reveal is recorded in your account's audit log (GET /v1/contacts/reveals) and counted as `contact_reveals` in GET /v1/usage. " +
  'A creator with no email or website on record is a 404 `not_found` that says so; it is neither recorded nor counted.';

/** GET /v1/creators/{handle}/contacts (scoped, metered, audited) and the account's reveals audit log. */
export function contactsRoutes(kit: RouteKit): Router {
  const router = new Router();
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/creators/{handle}/contacts',
      operationId: 'revealContacts',
      tags: ['creators'],
      scope: 'contacts:read',
      summary: 'Reveal a creator’s contact details (email, website)',
      params: ProfileParams,
      query: ProfileQuery,
      description: CONTACTS_DESCRIPTION,
      errors: ['creator_not_found', 'ambiguous_handle', 'not_found'],
      responses: {
        200: {
          description: 'The contact details; this reveal is now in your audit log',
          schema: ContactsSchema,
          headers: {
            'Cache-Control': {
              description: '`no-store`: the body carries personal data',
              schema: { type: 'string', enum: ['no-store'] },
            },
          },
        },
      },
    },
    async (ctx, { params, query }) => {
      const handle = normaliseHandle(params.handle);
      if (!handle) throw ValidationError.param('handle', 'must be a handle like @name (letters, digits, . _ -)');
      const p = principalOf(ctx);
      const revealed = await revealContacts(
        kit.store,
        kit.state,
        { accountId: p.accountId, keyId: p.keyId },
        handle,
        query.platform ?? null,
      );
      ctx.set('Cache-Control', 'no-store');
      ctx.body = revealed;
    },
  );
  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/contacts/reveals',
      operationId: 'listContactReveals',
      tags: ['creators'],
      scope: 'read',
      summary: "Your account's contact reveals, newest first (the audit log)",
      query: RevealsQuery,
      description:
        "Every reveal any key of your account made, with the key and the fields revealed; only your own account's.",
      responses: { 200: { description: 'A page of reveals', schema: pageOf(RevealSchema) } },
    },
    async (ctx, { query }) => {
      const accountId = principalOf(ctx).accountId;
      ctx.body = await keysetPage(
        kit.cursors,
        query,
        { scope: `reveals:${accountId}`, shape: ID_KEY },
        async (after, limit) => {
          const rows = await listReveals(kit.state, accountId, after?.[0] ?? null, limit + 1);
          return takePage(rows, limit, (r) => [r.id] as const);
        },
      );
    },
  );
  return router;
}
