import { normaliseHandle, resolveHandle } from '../creators/creator-profile.service.js';
import { CreatorNotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import type { StateDb } from '../state/state-db.js';
import type { Store } from '../store.js';
import { toAssessment, type Assessment } from './explain.js';
import { activeModel } from './model-registry.queries.js';
import * as q from './verification.queries.js';

/** A stored verification: the assessment with its id, the creator and when it was made (docs/authenticity.md). */
export interface Verification extends Assessment {
  id: string;
  handle: string;
  platform: string;
  checked_at: string;
}

/**
 * Verifies (handle, platform?) from current data in the analytical `store` and
 * stores the result under the caller's account in the service `state`. Unknown
 * handle → creator_not_found; a handle on several platforms with none given →
 * ambiguous_handle naming them.
 */
export async function verifyCreator(
  store: Store,
  state: StateDb,
  accountId: string,
  rawHandle: string,
  platform: string | null,
): Promise<Verification> {
  const handle = normaliseHandle(rawHandle);
  if (!handle)
    throw ValidationError.field('handle', 'a handle is letters, digits, ".", "_" or "-", with an optional leading @');
  const match = await resolveHandle(store, handle, platform);
  const model = await activeModel(store);
  const row = await q.scoreCreator(store, match.creator_id, model);
  if (!row) throw new CreatorNotFoundError(handle, platform);
  const verification: Verification = {
    id: newId('ver'),
    handle,
    platform: match.platform,
    ...toAssessment(row, model),
    checked_at: new Date().toISOString(),
  };
  await q.insertVerification(state, {
    verification_id: verification.id,
    account_id: accountId,
    creator_id: match.creator_id,
    platform: match.platform,
    handle,
    authenticity_score: verification.authenticity_score,
    verdict: verification.verdict,
    model_version: verification.model_version,
    result: JSON.stringify(verification),
    checked_at: verification.checked_at,
  });
  return verification;
}

/** One of the account's verifications; undefined when there is none (or it is another account's). */
export async function getVerification(
  state: StateDb,
  accountId: string,
  id: string,
): Promise<Verification | undefined> {
  const result = await q.selectVerification(state, accountId, id);
  return result === undefined ? undefined : (JSON.parse(result) as Verification);
}

/** A page of the account's verifications, newest first; `limit + 1` rows tell whether there is a next page. */
export async function listVerifications(
  state: StateDb,
  accountId: string,
  filter: q.VerificationFilter,
): Promise<Verification[]> {
  const rows = await q.listVerifications(state, accountId, filter);
  return rows.map((r) => JSON.parse(r.result) as Verification);
}

/** A handle as stored, or a 400 naming the parameter. */
export function handleParam(raw: string): string {
  const handle = normaliseHandle(raw);
  if (!handle)
    throw ValidationError.param('handle', 'a handle is letters, digits, ".", "_" or "-", with an optional leading @');
  return handle;
}
