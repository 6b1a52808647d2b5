import { z } from 'zod';
import { OperatorRequestError } from '../../../data/operator-errors.js';
import { createKey, listKeys, revokeKey } from '../../../data/keys/key.service.js';
import { AdminArgsError, AdminUserError, defineOp } from '../admin-op.js';

/** Key and plan rule breaks as the CLI's errors: a command-line mistake exits 2 with the usage line, anything else 1. */
export async function userErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof OperatorRequestError) {
      throw error.usage ? new AdminArgsError(error.message) : new AdminUserError(error.message);
    }
    throw error;
  }
}

export const keysCreate = defineOp({
  name: 'keys.create',
  args: z.object({
    account: z.string().min(1).max(200),
    /** Required for a new account; for an existing one it must match (keys create never changes a plan). */
    plan: z.string().min(1).nullable().optional(),
    name: z.string().trim().min(1).max(100).nullable().optional(),
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
  run: (ctx, args) =>
    userErrors(async () => {
      await revokeKey(ctx.state, args.key_id);
      return { key_id: args.key_id, revoked: true };
    }),
});
