import { newId } from '../ids.js';
import { findAccount, insertAccount, type AccountRow } from '../keys/key.queries.js';
import type { Store } from '../store.js';

/** Name of the account the demo data (campaigns) and the printed demo key belong to. */
export const DEMO_ACCOUNT_NAME = 'demo';

/** The demo account (entry plan), created on first use. */
export async function ensureDemoAccount(store: Store): Promise<AccountRow> {
  const existing = await findAccount(store, DEMO_ACCOUNT_NAME);
  if (existing) return existing;
  const row = { account_id: newId('acct'), name: DEMO_ACCOUNT_NAME, plan: 'entry' };
  await insertAccount(store, row);
  return { ...row, created_at: new Date() };
}
