import type { Store } from '../../data/store.js';
import { fanOutUpTo, nextFanOutBound, type FanOutLease, type LeasedDelivery } from './fan-out.queries.js';

/**
 * Turns the next batch of new events into deliveries and marks them fanned out,
 * in one transaction, so an event is never fanned out twice nor lost between the two.
 * With `lease`, some new deliveries come back already claimed for the caller to send.
 */
export async function fanOut(store: Store, batch: number, lease: FanOutLease | null = null, now = new Date().toISOString()):
  Promise<{ events: number; leased: LeasedDelivery[] }> {
  const probe = await nextFanOutBound(store, batch);
  if (probe === null) return { events: 0, leased: [] };
  return store.transaction(async (tx) => {
    const bound = await nextFanOutBound(tx, batch);
    if (bound === null) return { events: 0, leased: [] };
    return fanOutUpTo(tx, bound, now, lease);
  });
}
