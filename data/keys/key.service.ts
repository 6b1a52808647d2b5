import { createHash } from 'node:crypto';
import { DEFAULT_SCOPES, PLANS, SCOPES, type Plan, type Scope } from '../../config/config.js';
import { newId, randomString } from '../ids.js';
import type { StateDb } from '../state/state-db.js';
import * as q from './key.queries.js';

const KEY_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** A rule broken by a key or account request; says what to fix. */
export class KeyRequestError extends Error {
  override name = 'KeyRequestError';
}

export interface CreatedKey {
  key: string;
  key_id: string;
  account_id: string;
  account_name: string;
  plan: Plan;
  scopes: Scope[];
  expires_at: string | null;
  account_created: boolean;
}

export interface KeySummary {
  key_id: string;
  account_id: string;
  account_name: string;
  plan: string;
  key_prefix: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  status: 'active' | 'revoked' | 'expired';
}

/** The authenticated caller behind a key. */
export interface Principal {
  keyId: string;
  accountId: string;
  accountName: string;
  plan: Plan;
  scopes: ReadonlySet<string>;
}

/** SHA-256 of the key: all the store ever keeps of it. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new random key: `cds_` and 40 base62 characters (about 238 bits). */
export function generateKey(): string {
  return `cds_${randomString(40, KEY_ALPHABET)}`;
}

/**
 * Creates a key for an account given by id or name; a new name creates the
 * account on `plan`. An existing account keeps its plan unless `plan` differs,
 * in which case it moves to it.
 */
export async function createKey(state: StateDb, input: {
  account: string; plan: string; scopes?: readonly string[]; expires?: string | null;
}): Promise<CreatedKey> {
  const plan = parsePlan(input.plan);
  const scopes = parseScopes(input.scopes);
  const expiresAt = parseExpiry(input.expires ?? null);
  return state.transaction(async (tx) => {
    let account = await q.findAccount(tx, input.account);
    const created = !account;
    if (!account) {
      if (input.account.startsWith('acct_')) throw new KeyRequestError(`no account with id ${input.account}`);
      const row = { account_id: newId('acct'), name: input.account, plan };
      await q.insertAccount(tx, row);
      account = { ...row, created_at: new Date() };
    } else if (account.plan !== plan) {
      await q.updateAccountPlan(tx, account.account_id, plan);
    }
    const key = generateKey();
    const keyId = newId('key');
    await q.insertKey(tx, { key_id: keyId, account_id: account.account_id, key_hash: hashKey(key),
      key_prefix: key.slice(0, 12), scopes, expires_at: expiresAt });
    return { key, key_id: keyId, account_id: account.account_id, account_name: account.name, plan, scopes,
      expires_at: expiresAt, account_created: created };
  });
}

export async function listKeys(state: StateDb, account: string | null): Promise<KeySummary[]> {
  let accountId: string | null = null;
  if (account) {
    const found = await q.findAccount(state, account);
    if (!found) throw new KeyRequestError(`no account named or with id ${account}`);
    accountId = found.account_id;
  }
  const now = Date.now();
  return (await q.listKeys(state, accountId)).map((row) => ({
    key_id: row.key_id, account_id: row.account_id, account_name: row.account_name, plan: row.plan,
    key_prefix: row.key_prefix, scopes: row.scopes, created_at: row.created_at.toISOString(),
    expires_at: row.expires_at ? row.expires_at.toISOString() : null, status: keyStatus(row, now),
  }));
}

export async function revokeKey(state: StateDb, keyId: string): Promise<void> {
  if (!(await q.revokeKey(state, keyId))) throw new KeyRequestError(`no active key with id ${keyId}`);
}

/** The principal for a presented key, or null when it is unknown, revoked or expired. */
export async function authenticate(state: StateDb, presented: string, now = Date.now()): Promise<Principal | null> {
  if (!/^cds_[0-9A-Za-z]{32,}$/.test(presented)) return null;
  const row = await q.findKeyByHash(state, hashKey(presented));
  if (!row || keyStatus(row, now) !== 'active') return null;
  return { keyId: row.key_id, accountId: row.account_id, accountName: row.account_name, plan: parsePlan(row.plan),
    scopes: new Set(row.scopes) };
}

function keyStatus(row: q.ApiKeyRow, now: number): KeySummary['status'] {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && row.expires_at.getTime() <= now) return 'expired';
  return 'active';
}

function parsePlan(plan: string): Plan {
  if (!(PLANS as readonly string[]).includes(plan)) throw new KeyRequestError(`plan must be one of ${PLANS.join(', ')}`);
  return plan as Plan;
}

function parseScopes(scopes: readonly string[] | undefined): Scope[] {
  if (!scopes || scopes.length === 0) return [...DEFAULT_SCOPES];
  const bad = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (bad.length > 0) throw new KeyRequestError(`unknown scope ${bad.join(', ')}; scopes are ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}

/** `--expires` takes an ISO timestamp or a duration like 30d / 12h. */
function parseExpiry(value: string | null): string | null {
  if (!value) return null;
  const duration = /^(\d+)([dhm])$/.exec(value);
  const ms = duration ? Number(duration[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[duration[2] as 'd' | 'h' | 'm'] : null;
  const date = ms !== null ? new Date(Date.now() + ms) : new Date(value);
  if (Number.isNaN(date.getTime())) throw new KeyRequestError(`--expires must be an ISO timestamp or a duration like 30d, not ${value}`);
  return date.toISOString();
}
