import type { StateQueryable } from '../state/state-db.js';
import type { Store } from '../store.js';
import { timestampSql } from '../timestamps.js';

export interface ContactRow extends Record<string, unknown> {
  email: string | null;
  website: string | null;
}

/** The creator's contact details from the analytical store; undefined when none is on record. */
export function selectContact(store: Store, creatorId: number): Promise<ContactRow | undefined> {
  return store.one<ContactRow>('SELECT email, website FROM creator_contacts WHERE creator_id = ?::INTEGER', [
    creatorId,
  ]);
}

/** One entry of the reveals audit log (`contact_reveals`, service state). */
export interface RevealRecord {
  reveal_id: string;
  account_id: string;
  key_id: string;
  creator_id: number;
  platform: string;
  handle: string;
  /** The fields the reveal answered (`email`, `website`): never their values. */
  fields: readonly string[];
  /** ISO 8601 UTC. */
  revealed_at: string;
}

export async function insertReveal(state: StateQueryable, r: RevealRecord): Promise<void> {
  await state.run(
    `INSERT INTO contact_reveals (reveal_id, account_id, key_id, creator_id, platform, handle, fields, revealed_at)
    VALUES (?, ?, ?, ?, ?, ?, ?::VARCHAR[], ?::TIMESTAMP)`,
    [r.reveal_id, r.account_id, r.key_id, r.creator_id, r.platform, r.handle, r.fields, r.revealed_at],
  );
}

export interface RevealRow extends Record<string, unknown> {
  id: string;
  key_id: string;
  platform: string;
  handle: string;
  fields: string[];
  revealed_at: string;
}

/** The account's reveals, newest first, keyset-paged on the id (ids sort by creation time). */
export function listReveals(
  state: StateQueryable,
  accountId: string,
  before: string | null,
  limit: number,
): Promise<RevealRow[]> {
  return state.all<RevealRow>(
    `SELECT reveal_id AS id, key_id, platform, handle, fields, ${timestampSql('revealed_at')} AS revealed_at
    FROM contact_reveals WHERE account_id = ? AND (?::VARCHAR IS NULL OR reveal_id < ?)
    ORDER BY reveal_id DESC LIMIT ?`,
    [accountId, before, before, limit],
  );
}
