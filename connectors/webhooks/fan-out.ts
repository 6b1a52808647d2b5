import type { Store } from '../../data/store.js';
import { fanOutUpTo, nextFanOutBound } from './fan-out.queries.js';

/**
 * Turns the next batch of new events into deliveries and marks them fanned out,
 * in one transaction, so an event is never fanned out twice nor lost between the two.
 * Answers how many events it handled.
 */
export async function fanOut(store: Store, batch: number, now = new Date().toISOString()): Promise<number> {
  const probe = await nextFanOutBound(store, batch);
  if (probe === null) return 0;
  return store.transaction(async (tx) => {
    const bound = await nextFanOutBound(tx, batch);
    if (bound === null) return 0;
    return (await fanOutUpTo(tx, bound, now)).events;
  });
}
