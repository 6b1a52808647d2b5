import Router from '@koa/router';
import { z } from 'zod';
import { SCOPES } from '../../data/plans/plans.js';
import {
  createAccountKey,
  DEFAULT_ROTATION_GRACE_SECONDS,
  listAccountKeys,
  MAX_ROTATION_GRACE_SECONDS,
  revokeAccountKey,
  rotateAccountKey,
} from '../../data/keys/account-keys.service.js';
import { ValidationError } from '../../data/errors.js';
import { parseTimeText, timestampSchema, timestampText } from '../../data/timestamps.js';
import { defineRoute } from '../http/define-route.js';
import { takePage } from '../../data/paging.js';
import { keysetPage } from '../http/keyset-page.js';
import { cursorParam, limitParam, pageOf } from '../http/pagination.js';
import type { RouteKit } from '../http/route-kit.js';
import { principalOf } from '../middleware/auth.middleware.js';

const Rotation = z
  .object({
    previous_key_prefix: z.string().describe("The rotated-out secret's prefix"),
    previous_expires_at: timestampSchema('When the rotated-out secret stops working'),
  })
  .nullable()
  .describe('While the secret a rotation replaced still works; null otherwise');

const KeySchema = z.object({
  id: z.string().describe('key_…'),
  name: z.string(),
  key_prefix: z.string().describe('The first 12 characters of the secret, to tell keys apart'),
  scopes: z.array(z.string()),
  owner: z.boolean().describe("Holds keys:write, so it may manage the account's keys"),
  status: z.enum(['active', 'revoked', 'expired']),
  created_at: timestampSchema('When the key was created'),
  expires_at: timestampSchema('When the key stops working; null: never').nullable(),
  last_used_at: timestampSchema(
    'The last request made with the key (written every ~10 s); null: never used',
  ).nullable(),
  rotation: Rotation,
});
const NewKeySchema = KeySchema.extend({
  key: z.string().describe('The secret, `cds_…`: shown only in this response; keep it safe'),
});

const NO_STORE_HEADER = {
  description: '`no-store`: the body carries a secret',
  schema: { type: 'string', enum: ['no-store'] },
};
/** Keys page in creation order: (created_at in µs, key id). */
const CREATED_KEY = ['number', 'string'] as const;
const IdParams = z.object({ id: z.string().regex(/^key_[0-9A-Za-z]{1,64}$/, 'a key id (key_…)') });
const PageQuery = z.object({ limit: limitParam, cursor: cursorParam });
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const CreateBody = z.object({
  name: z.string().trim().min(1).max(100),
  scopes: z
    .array(z.enum(SCOPES))
    .min(1)
    .max(SCOPES.length)
    .optional()
    .describe(
      "Each must be held by the calling key; admin is never granted; default: the caller's scopes minus keys:write and admin",
    ),
  expires_at: z
    .string()
    .regex(RFC3339, 'an RFC 3339 time such as 2027-01-01T00:00:00Z')
    .refine((s) => parseTimeText(s) !== null, 'not a real time (check the day of the month, the hour and the minute)')
    .nullable()
    .optional()
    .describe('When the key stops working (RFC 3339, in the future); null or absent: never'),
});
const RotateBody = z.object({
  grace_seconds: z
    .number()
    .int()
    .min(0)
    .max(MAX_ROTATION_GRACE_SECONDS)
    .optional()
    .describe(
      `How long the old secret keeps working, 0–${MAX_ROTATION_GRACE_SECONDS} s (default ${DEFAULT_ROTATION_GRACE_SECONDS}: one day)`,
    ),
});

const KEYS_DESCRIPTION =
  'Needs the `keys:write` scope, which owner keys hold (the first key the operator makes for an account). ' +
  "Only the caller's account's keys are reachable; another account's key id is a 404.";

/** Self-service API keys: list, create, revoke and rotate the caller's account's keys. */
export function keysRoutes(kit: RouteKit): Router {
  const router = new Router();

  defineRoute(
    kit,
    router,
    {
      method: 'get',
      path: '/v1/keys',
      operationId: 'listKeys',
      tags: ['keys'],
      scope: 'keys:write',
      summary: "Your account's API keys, oldest first (never a secret)",
      description: KEYS_DESCRIPTION,
      query: PageQuery,
      responses: { 200: { description: 'A page of keys', schema: pageOf(KeySchema) } },
    },
    async (ctx, { query }) => {
      const accountId = principalOf(ctx).accountId;
      ctx.body = await keysetPage(
        kit.cursors,
        query,
        { scope: `keys:${accountId}`, shape: CREATED_KEY },
        async (after, limit) => {
          const rows = await listAccountKeys(
            kit.state,
            accountId,
            after ? { createdUs: after[0], keyId: after[1] } : null,
            limit + 1,
          );
          return takePage(
            rows,
            limit,
            (k) => [k.cursor.createdUs, k.cursor.keyId] as const,
            ({ cursor: _keyset, ...key }) => key,
          );
        },
      );
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/keys',
      operationId: 'createKey',
      tags: ['keys'],
      scope: 'keys:write',
      summary: 'Create an API key for your account',
      body: CreateBody,
      errors: ['insufficient_scope'],
      description:
        `${KEYS_DESCRIPTION} The secret (\`key\`) is in this response only. A scope the calling key lacks is a 403 ` +
        '`insufficient_scope` naming it (`required_scope`); `admin` is never granted here. Granting `keys:write` makes the new key an owner key.',
      responses: {
        201: {
          description: 'Created',
          schema: NewKeySchema,
          headers: { Location: { description: 'The keys collection' }, 'Cache-Control': NO_STORE_HEADER },
        },
      },
    },
    async (ctx, { body }) => {
      if (body.expires_at && (parseTimeText(body.expires_at) ?? 0) <= Date.now())
        throw ValidationError.field('expires_at', 'must be in the future');
      const created = await createAccountKey(kit.state, principalOf(ctx), {
        name: body.name,
        scopes: body.scopes,
        expires_at: body.expires_at ? timestampText(parseTimeText(body.expires_at) ?? Number.NaN) : null,
      });
      ctx.status = 201;
      ctx.set('Location', '/v1/keys');
      ctx.set('Cache-Control', 'no-store');
      ctx.body = created;
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'delete',
      path: '/v1/keys/{id}',
      operationId: 'revokeKey',
      tags: ['keys'],
      scope: 'keys:write',
      summary: 'Revoke one of your keys; it stops working at once',
      params: IdParams,
      errors: ['not_found', 'conflict'],
      description:
        `${KEYS_DESCRIPTION} A key may revoke itself. The account's last active owner key cannot be revoked (409 \`conflict\`): ` +
        'create another key with keys:write first. Revoking a revoked key changes nothing (204).',
      responses: { 204: { description: 'Revoked' } },
    },
    async (ctx, { params }) => {
      await revokeAccountKey(kit.state, principalOf(ctx).accountId, params.id);
      ctx.status = 204;
    },
  );

  defineRoute(
    kit,
    router,
    {
      method: 'post',
      path: '/v1/keys/{id}/rotate',
      operationId: 'rotateKey',
      tags: ['keys'],
      scope: 'keys:write',
      summary: 'Give a key a new secret; the old one keeps working for a grace period',
      params: IdParams,
      body: RotateBody,
      errors: ['not_found', 'conflict'],
      description:
        `${KEYS_DESCRIPTION} Answers the new secret once (same key id, scopes and expiry). The old secret keeps working for ` +
        `\`grace_seconds\` (default ${DEFAULT_ROTATION_GRACE_SECONDS} s, one day; at most one week), then is refused with 401. ` +
        'Rotating again within the grace ends the earlier old secret at once. A revoked or expired key is a 409 `conflict`.',
      responses: {
        200: {
          description: 'The key with its new secret',
          schema: NewKeySchema,
          headers: { 'Cache-Control': NO_STORE_HEADER },
        },
      },
    },
    async (ctx, { params, body }) => {
      const rotated = await rotateAccountKey(kit.state, principalOf(ctx).accountId, params.id, body.grace_seconds);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = rotated;
    },
  );

  return router;
}
