import { z } from 'zod';
import { evaluatePricing } from '../../../data/derive/pricing-eval.js';
import {
  activePricingModel,
  MIN_PRICE_OBSERVATIONS,
  readObservations,
  refitPrices,
} from '../../../data/derive/pricing.js';
import { serialiseLoad } from '../../../pipelines/engine/run-lock.js';
import { AdminUserError, defineOp, writerStore } from '../admin-op.js';

const tooFew = (n: number): AdminUserError =>
  new AdminUserError(
    `the store holds ${n} campaign prices; a price model needs at least ${MIN_PRICE_OBSERVATIONS} ` +
      '(completed USD campaigns whose rosters give post_type and posts, with spend: docs/pricing.md)',
  );

/** Fits on a split held out by creator and measures the held-out prices (docs/pricing.md); writes nothing. */
export const pricingEval = defineOp({
  name: 'pricing.eval',
  args: z.object({}),
  run: async (ctx) => {
    const store = writerStore(ctx);
    const obs = await readObservations(store);
    if (obs.length < MIN_PRICE_OBSERVATIONS) throw tooFew(obs.length);
    ctx.progress({ step: 'fitting', done: 0, total: null });
    const started = performance.now();
    const evaluation = evaluatePricing(obs);
    return {
      observations: obs.length,
      creators: new Set(obs.map((o) => o.creator_id)).size,
      active_model: (await activePricingModel(store))?.version ?? null,
      ...evaluation,
      seconds: (performance.now() - started) / 1000,
    };
  },
});

/** Refits the model now and rewrites every estimate, as a campaign load does. */
export const pricingFit = defineOp({
  name: 'pricing.fit',
  args: z.object({}),
  run: async (ctx) => {
    const store = writerStore(ctx);
    ctx.progress({ step: 'fitting', done: 0, total: null });
    // serialised with loads: a load's refit and this one must not interleave their writes
    const fit = await serialiseLoad(store, () => store.transaction((tx) => refitPrices(tx)));
    if (!fit) throw tooFew((await readObservations(store)).length);
    return fit;
  },
});

export const pricingOps = [pricingEval, pricingFit];
