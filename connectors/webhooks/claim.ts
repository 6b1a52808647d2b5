import type { StateDb } from '../../data/state/state-db.js';
import { leaseDue, loadForSending, logInterrupted, type ClaimedDelivery } from './delivery.queries.js';

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

/** Leases due deliveries fairly across subscriptions and answers them ready to send. */
export async function claimDue(state: StateDb, req: ClaimRequest): Promise<ClaimedDelivery[]> {
  const now = new Date(req.now).toISOString();
  if (req.sweepExpired) await logInterrupted(state, now);
  const leased = await leaseDue(state, {
    now,
    leaseUntil: new Date(req.now + req.leaseMs).toISOString(),
    limit: req.limit,
    cap: req.perEndpointCap,
    held: req.held,
    expired: req.sweepExpired,
  });
  if (leased.length === 0) return [];
  // A delivery whose event or subscription went meanwhile (pruned, deleted) is not loaded; its lease just runs out.
  return loadForSending(state, leased);
}
