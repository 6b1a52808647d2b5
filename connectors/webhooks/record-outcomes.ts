import type { StateDb } from '../../data/state/state-db.js';
import { disableSubscriptions, recordAttempts, updateHealth, type AttemptRecord } from './delivery.queries.js';
import { FAILING_DISABLE_MS } from './retry-policy.js';

/**
 * Records a batch of finished attempts and what they mean for their subscriptions,
 * in one transaction: the attempt log, delivery states, the failing streak, and
 * disabling on 410 or after 5 days of failing every delivery. `maybeFailing` are
 * the subscriptions that may have a failing streak to clear (the worker tracks
 * them, sparing a statement per batch in the common all-healthy case); it is updated.
 */
export async function recordOutcomes(
  state: StateDb,
  batch: readonly AttemptRecord[],
  nowMs: number,
  maybeFailing: Set<string>,
): Promise<void> {
  const now = new Date(nowMs).toISOString();
  const succeeded = new Set(
    batch.filter((r) => r.status === 'succeeded' && maybeFailing.has(r.webhook_id)).map((r) => r.webhook_id),
  );
  const anySuccess = new Set(batch.filter((r) => r.status === 'succeeded').map((r) => r.webhook_id));
  const failed = [
    ...new Set(batch.filter((r) => r.status !== 'succeeded' && !anySuccess.has(r.webhook_id)).map((r) => r.webhook_id)),
  ];
  const gone = [...new Set(batch.filter((r) => r.code === 410).map((r) => r.webhook_id))];
  await state.transaction(async (tx) => {
    await recordAttempts(tx, batch, now);
    await updateHealth(tx, [...succeeded], failed, now);
    await disableSubscriptions(tx, gone, failed, new Date(nowMs - FAILING_DISABLE_MS).toISOString(), now);
  });
  for (const id of succeeded) maybeFailing.delete(id);
  for (const id of failed) maybeFailing.add(id);
}
