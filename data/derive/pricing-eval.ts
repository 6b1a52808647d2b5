import {
  fitPriceModel,
  predictLog,
  priceInterval,
  quantile,
  residualsByCreator,
  type PriceObservation,
} from './pricing-fit.js';

/** The share of creators held out entirely (their estimates are peer-based). */
export const HELD_OUT_CREATORS = 0.2;

/** The accuracy of one kind of estimate on held-out campaign prices. */
export interface HeldOutFigures {
  /** Held-out prices. */
  n: number;
  /** Median absolute percentage error of the mid estimate, as a fraction. */
  mdape: number | null;
  /** The share of held-out prices between low and high. */
  coverage: number | null;
}

/** What `evaluatePricing` measures (stored as `pricing_models.metrics`; printed by `cds pricing eval`). */
export interface PricingEvaluation {
  train_observations: number;
  /** Held-out campaigns of creators with other campaign prices in the fit (basis `campaigns`). */
  campaigns: HeldOutFigures;
  /** Every price of creators held out entirely (basis `peers`). */
  peers: HeldOutFigures;
}

/** Whether a creator is held out entirely: a fixed hash of its id, so every fit holds out the same creators. */
function heldOutCreator(id: number): boolean {
  return (Math.imul(id, 2654435761) >>> 0) / 2 ** 32 < HELD_OUT_CREATORS;
}

/**
 * Splits by creator: a fifth of the creators are held out with all their
 * prices (peer-based estimates); of the others, each with two or more prices
 * has its first campaign (by id) held out (campaign-based estimates: its other
 * prices stay in the fit). Fits on the rest and measures both held-out sets.
 */
export function evaluatePricing(obs: readonly PriceObservation[]): PricingEvaluation {
  const perCreator = new Map<number, number>();
  for (const o of obs) perCreator.set(o.creator_id, (perCreator.get(o.creator_id) ?? 0) + 1);
  const seen = new Set<number>();
  const train: PriceObservation[] = [];
  const ownHeld: PriceObservation[] = [];
  const peerHeld: PriceObservation[] = [];
  for (const o of obs) {
    if (heldOutCreator(o.creator_id)) peerHeld.push(o);
    else if ((perCreator.get(o.creator_id) ?? 0) >= 2 && !seen.has(o.creator_id)) {
      seen.add(o.creator_id);
      ownHeld.push(o);
    } else train.push(o);
  }
  const model = fitPriceModel(train);
  const residuals = residualsByCreator(model, train);
  const figures = (held: readonly PriceObservation[]): HeldOutFigures => {
    const errors: number[] = [];
    let inside = 0;
    for (const o of held) {
      const r = residuals.get(o.creator_id) ?? [];
      const mean = r.length > 0 ? r.reduce((s, x) => s + x, 0) / r.length : 0;
      const iv = priceInterval(model.spread, r.length, mean);
      const mid = predictLog(model, o) + iv.shift;
      errors.push(Math.abs(Math.exp(mid - o.y) - 1));
      if (o.y >= mid + iv.low && o.y <= mid + iv.high) inside++;
    }
    errors.sort((a, b) => a - b);
    return {
      n: held.length,
      mdape: held.length > 0 ? quantile(errors, 0.5) : null,
      coverage: held.length > 0 ? inside / held.length : null,
    };
  };
  return { train_observations: train.length, campaigns: figures(ownHeld), peers: figures(peerHeld) };
}
