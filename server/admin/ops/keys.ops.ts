import { z } from 'zod';
import { createKey, KeyRequestError, listKeys, revokeKey } from '../../../data/keys/key.service.js';
import { AdminUserError, defineOp } from '../admin-op.js';

async function userErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof KeyRequestError) throw new AdminUserError(error.message);
    throw error;
  }
}

export const keysCreate = defineOp({
  name: 'keys.create',
  args: z.object({
    account: z.string().min(1).max(200),
    plan: z.string().default('entry'),
    scopes: z.array(z.string()).optional(),
    expires: z.string().nullable().optional(),
  }),
  run: (ctx, args) => userErrors(() => createKey(ctx.state, args)),
});

export const keysList = defineOp({
  name: 'keys.list',
  args: z.object({ account: z.string().min(1).nullable().default(null) }),
  run: (ctx, args) => userErrors(() => listKeys(ctx.state, args.account)),
});

export const keysRevoke = defineOp({
  name: 'keys.revoke',
  args: z.object({ key_id: z.string().min(1) }),
  run: (ctx, args) => userErrors(async () => {
    await revokeKey(ctx.state, args.key_id);
    return { key_id: args.key_id, revoked: true };
  }),
});
