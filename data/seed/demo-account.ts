import { newId } from '../ids.js';
import { findAccount, insertAccount, type AccountRow } from '../keys/key.queries.js';
import type { StateDb } from '../state/state-db.js';

/** Name of the account the demo data (campaigns) and the printed demo key belong to. */
export const DEMO_ACCOUNT_NAME = 'demo';

/** The demo account (entry plan), created on first use. */
export async function ensureDemoAccount(state: StateDb): Promise<AccountRow> {
  const existing = await findAccount(state, DEMO_ACCOUNT_NAME);
  if (existing) return existing;
  const row = { account_id: newId('acct'), name: DEMO_ACCOUNT_NAME, plan: 'entry' };
  await insertAccount(state, row);
  return { ...row, created_at: new Date() };
}
