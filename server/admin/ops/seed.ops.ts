import { z } from 'zod';
import { seedDemoData, StoreNotEmptyError } from '../../../data/seed/demo-generator.js';
import { ensureDemoAccount } from '../../../data/seed/demo-account.js';
import { SeedDiskSpaceError } from '../../../data/seed/seed-state.js';
import { serialiseLoad } from '../../../pipelines/engine/run-lock.js';
import { AdminUserError, defineOp, writerStore } from '../admin-op.js';

export const seed = defineOp({
  name: 'seed',
  args: z.object({
    creators: z.number().int().min(100).max(5_000_000),
    seed: z.number().int().min(0).default(42),
    as_of: z.iso.date().optional(),
  }),
  run: async (ctx, args) => {
    const store = writerStore(ctx);
    const account = await ensureDemoAccount(ctx.state);
    try {
      // serialised with pipeline loads: a load between two seed steps would see half a dataset
      return await serialiseLoad(store, () =>
        seedDemoData(store, {
          creators: args.creators,
          seed: args.seed,
          asOf: args.as_of ?? new Date().toISOString().slice(0, 10),
          demoAccountId: account.account_id,
          onProgress: (step, done, total) => ctx.progress({ step, done, total, unit: 'steps' }),
        }),
      );
    } catch (error) {
      if (error instanceof StoreNotEmptyError || error instanceof SeedDiskSpaceError)
        throw new AdminUserError(error.message);
      throw error;
    }
  },
});
