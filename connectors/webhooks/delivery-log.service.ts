import { ConflictError, NotFoundError } from '../../data/errors.js';
import type { StateDb } from '../../data/state/state-db.js';
import { retryOnWriteConflict } from '../../core/keyed-queue.js';
import * as q from './delivery-log.queries.js';
import { toDeliveryLogEntry, type DeliveryLogEntry } from './webhook.mapper.js';
import { getWebhook } from './webhook.service.js';

/** A keyset position in the delivery log (newest first). */
export interface DeliveryCursor {
  createdAt: string;
  id: string;
}

/** One page of a subscription's delivery log, newest first; fetch `limit + 1` to know whether more follow. */
export async function listDeliveries(
  state: StateDb,
  accountId: string,
  webhookId: string,
  opts: {
    after: DeliveryCursor | null;
    status: string | null;
    limit: number;
  },
): Promise<Array<{ entry: DeliveryLogEntry; key: DeliveryCursor }>> {
  await getWebhook(state, accountId, webhookId);
  const rows = await q.selectDeliveries(state, webhookId, opts);
  return rows.map((r) => ({ entry: toDeliveryLogEntry(r), key: { createdAt: r.created_at_raw, id: r.delivery_id } }));
}

/**
 * Replays a delivery: due again now, same delivery id (so the same `webhook-id`:
 * receivers that already processed it can recognise it). 409 while an attempt is in flight.
 */
export async function retryDelivery(
  state: StateDb,
  accountId: string,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryLogEntry> {
  const hook = await getWebhook(state, accountId, webhookId);
  if (hook.status !== 'enabled')
    throw new ConflictError(`webhook ${webhookId} is disabled; enable it (PATCH status) first`);
  const existing = await q.selectDelivery(state, webhookId, deliveryId);
  if (!existing) throw new NotFoundError(`no delivery ${deliveryId} for webhook ${webhookId}`);
  if (
    (await retryOnWriteConflict(() => q.requeueDelivery(state, webhookId, deliveryId, new Date().toISOString()))) === 0
  ) {
    throw new ConflictError(`delivery ${deliveryId} has an attempt in flight; retry once it finished`);
  }
  const row = await q.selectDelivery(state, webhookId, deliveryId);
  if (!row) throw new NotFoundError(`no delivery ${deliveryId} for webhook ${webhookId}`);
  return toDeliveryLogEntry(row);
}
