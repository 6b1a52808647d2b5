import type { Store } from '../../data/store.js';
import { dueBySubscription, leaseDue, loadForSending, logInterrupted, type ClaimedDelivery } from './delivery.queries.js';

export interface ClaimRequest {
  now: number;
  leaseMs: number;
  /** Deliveries to claim at most, across subscriptions. */
  limit: number;
  /** Deliveries one subscription may hold (queued + in flight). */
  perEndpointCap: number;
  /** What each subscription already holds here. */
  held: ReadonlyMap<string, number>;
  /** Also log expired leases as interrupted attempts (done now and then, not on every claim). */
  sweepExpired: boolean;
}

/** Subscriptions looked at per claim; the rest wait for the next one. */
const MAX_SUBSCRIPTIONS_PER_CLAIM = 32;

/**
 * Leases due deliveries fairly: each subscription gets at most its free share,
 * oldest-due subscriptions first, so one backlogged endpoint cannot fill the batch.
 */
export async function claimDue(store: Store, req: ClaimRequest): Promise<ClaimedDelivery[]> {
  const now = new Date(req.now).toISOString();
  if (req.sweepExpired) await logInterrupted(store, now);
  const due = await dueBySubscription(store, now, MAX_SUBSCRIPTIONS_PER_CLAIM, req.sweepExpired);
  const allowances = share(due, req);
  if (allowances.length === 0) return [];
  const leased = await leaseDue(store, allowances, now, new Date(req.now + req.leaseMs).toISOString(), req.sweepExpired);
  if (leased.length === 0) return [];
  // A delivery whose event or subscription went meanwhile (pruned, deleted) is not loaded; its lease just runs out.
  return loadForSending(store, leased);
}

function share(due: ReadonlyArray<{ webhook_id: string; n: number }>, req: ClaimRequest): Array<{ webhook_id: string; n: number }> {
  let budget = req.limit;
  const out: Array<{ webhook_id: string; n: number }> = [];
  for (const d of due) {
    const n = Math.min(d.n, req.perEndpointCap - (req.held.get(d.webhook_id) ?? 0), budget);
    if (n <= 0) continue;
    out.push({ webhook_id: d.webhook_id, n });
    budget -= n;
    if (budget <= 0) break;
  }
  return out;
}
