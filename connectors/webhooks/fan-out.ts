import type { StateDb } from '../../data/state/state-db.js';
import { fanOutUpTo, nextFanOutBound, type FanOutLease, type LeasedDelivery } from './fan-out.queries.js';

/** Fan-outs run one at a time across every worker sharing the state (see `fanOut`). */
const FAN_OUT_LOCK = 'webhooks:fan-out';

/**
 * Turns the next batch of new events into deliveries and marks them fanned out,
 * in one transaction, so an event is never fanned out twice nor lost between the two.
 * With `lease`, some new deliveries come back already claimed for the caller to send.
 * Workers in other processes fan out too (cluster mode): the transactions queue on
 * one lock, and the bound is read again under it, so a batch another worker just
 * fanned out is not matched (nor its deliveries raced for) a second time.
 */
export async function fanOut(
  state: StateDb,
  batch: number,
  lease: FanOutLease | null = null,
  now = new Date().toISOString(),
): Promise<{ events: number; leased: LeasedDelivery[] }> {
  const probe = await nextFanOutBound(state, batch);
  if (probe === null) return { events: 0, leased: [] };
  return state.transaction(
    async (tx) => {
      const bound = await nextFanOutBound(tx, batch);
      if (bound === null) return { events: 0, leased: [] };
      return fanOutUpTo(tx, bound, now, lease);
    },
    { serialiseOn: FAN_OUT_LOCK },
  );
}
