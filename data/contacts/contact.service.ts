import { resolveHandle } from '../creators/creator-profile.service.js';
import { NotFoundError } from '../errors.js';
import { newId } from '../ids.js';
import type { StateDb } from '../state/state-db.js';
import type { Store } from '../store.js';
import { timestampText } from '../timestamps.js';
import * as q from './contact.queries.js';

/** The contact details of one creator, as one reveal answered them. */
export interface ContactReveal {
  handle: string;
  platform: string;
  email: string | null;
  website: string | null;
  reveal_id: string;
  revealed_at: string;
}

/** A reveal as the account's audit log shows it. */
export interface RevealEntry {
  id: string;
  key_id: string;
  handle: string;
  platform: string;
  fields: string[];
  revealed_at: string;
}

/** Who is asking: the account and key a reveal is recorded against. */
export interface Revealer {
  accountId: string;
  keyId: string;
}

/**
 * Reveals (handle, platform?)'s contact details and records the reveal in the
 * account's audit log, which usage counts. Unknown handle → creator_not_found;
 * a handle on several platforms with none given → ambiguous_handle; a creator
 * with no email or website on record → not_found, recorded and counted as
 * nothing (no reveal happened).
 */
export async function revealContacts(
  store: Store,
  state: StateDb,
  who: Revealer,
  handle: string,
  platform: string | null,
  now = new Date(),
): Promise<ContactReveal> {
  const match = await resolveHandle(store, handle, platform);
  const contact = await q.selectContact(store, match.creator_id);
  const email = contact?.email ?? null;
  const website = contact?.website ?? null;
  if (email === null && website === null) {
    throw new NotFoundError(
      `${handle} on ${match.platform} has no contact details on record (its profile says has_contact: false); nothing was revealed or counted`,
    );
  }
  const reveal = { reveal_id: newId('rev', now.getTime()), revealed_at: timestampText(now) };
  await q.insertReveal(state, {
    ...reveal,
    account_id: who.accountId,
    key_id: who.keyId,
    creator_id: match.creator_id,
    platform: match.platform,
    handle,
    fields: [email === null ? null : 'email', website === null ? null : 'website'].filter(
      (f): f is string => f !== null,
    ),
  });
  return { handle, platform: match.platform, email, website, ...reveal };
}

/** The account's reveals, newest first: `limit` of them before the id `before` (null: from the newest). */
export async function listReveals(
  state: StateDb,
  accountId: string,
  before: string | null,
  limit: number,
): Promise<RevealEntry[]> {
  const rows = await q.listReveals(state, accountId, before, limit);
  return rows.map((r) => ({
    id: r.id,
    key_id: r.key_id,
    handle: r.handle,
    platform: r.platform,
    fields: [...r.fields],
    revealed_at: r.revealed_at,
  }));
}
