import { createHash } from 'node:crypto';
import { DEFAULT_SCOPES, OWNER_SCOPES, SCOPES, type Scope } from '../plans/plans.js';
import { OperatorRequestError } from '../operator-errors.js';
import { newId, randomString } from '../ids.js';
import { requirePlan } from '../plans/plan-admin.service.js';
import type { StateDb, StateQueryable } from '../state/state-db.js';
import { optionalTimestamp, parseDateText, parseTimeText, timestampText } from '../timestamps.js';
import { authChanged } from './auth-epoch.js';
import * as q from './key.queries.js';

const KEY_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_SHAPE = /^cds_[0-9A-Za-z]{32,}$/;

/** The scope that lets a key manage its account's keys; the account's owner keys hold it. */
export const KEYS_WRITE: Scope = 'keys:write';

/** A rule broken by a key or account request (see `OperatorRequestError`). */
export class KeyRequestError extends OperatorRequestError {
  override name = 'KeyRequestError';
}

export interface CreatedKey {
  key: string;
  key_id: string;
  name: string;
  account_id: string;
  account_name: string;
  plan: string;
  scopes: Scope[];
  owner: boolean;
  expires_at: string | null;
  account_created: boolean;
}

export interface KeySummary {
  key_id: string;
  name: string | null;
  account_id: string;
  account_name: string;
  plan: string;
  key_prefix: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  status: KeyStatus;
}

export type KeyStatus = 'active' | 'revoked' | 'expired';

/** The authenticated caller behind a key. `scopes` are the key's own; the plan may allow fewer (see the auth middleware). */
export interface Principal {
  keyId: string;
  accountId: string;
  accountName: string;
  plan: string;
  scopes: ReadonlySet<string>;
  /** When the presented secret stops working (epoch ms; null: never): the ceiling for any key it creates. */
  expiresAt: number | null;
}

/** What a presented secret resolves to, before the clock is consulted: cacheable. */
export interface KeyLookup {
  principal: Principal;
  revoked: boolean;
  /** When the secret stops working: the key's expiry, or for a rotated-out secret the end of its grace, whichever is first. */
  expiresAt: number | null;
}

/** SHA-256 of the key: all the store ever keeps of it. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new random key: `cds_` and 40 base62 characters (about 238 bits). */
export function generateKey(): string {
  return `cds_${randomString(40, KEY_ALPHABET)}`;
}

/** True when the text has the shape of a key (cheap to check before hashing and looking it up). */
export function looksLikeKey(presented: string): boolean {
  return KEY_SHAPE.test(presented);
}

/**
 * The operator's `cds keys create`: a key for an account given by id or name. A
 * new name creates the account on `plan` (default entry), and its first key is
 * the owner key (`keys:write` and `contacts:read` besides the default scopes;
 * the plan still cuts them: an entry account's owner key reveals no contacts). An existing account
 * keeps its plan: a `plan` that differs is refused (`cds accounts set-plan`
 * changes plans), never applied silently.
 */
export async function createKey(
  state: StateDb,
  input: {
    account: string;
    plan?: string | null;
    scopes?: readonly string[];
    expires?: string | null;
    name?: string | null;
  },
): Promise<CreatedKey> {
  const requested = input.scopes && input.scopes.length > 0 ? parseScopes(input.scopes) : null;
  const expiresAt = parseExpiry(input.expires ?? null);
  const created = await state.transaction(
    async (tx) => {
      const existing = await q.findAccount(tx, input.account);
      const account = existing ?? (await createAccount(tx, input.account, input.plan));
      if (existing && input.plan && existing.plan !== input.plan) {
        throw new KeyRequestError(
          `account ${existing.name} is on plan ${existing.plan}; keys create never changes a plan: ` +
            `run cds accounts set-plan ${existing.name} ${input.plan}, then create the key without --plan`,
        );
      }
      const scopes = requested ?? (existing ? [...DEFAULT_SCOPES] : [...DEFAULT_SCOPES, ...OWNER_SCOPES]);
      const key = generateKey();
      const keyId = newId('key');
      // named by what it is: a key holding keys:write is an owner key whatever account it joins
      const name = input.name?.trim() || (scopes.includes(KEYS_WRITE) ? 'owner key' : 'operator key');
      await q.insertKey(tx, {
        key_id: keyId,
        account_id: account.account_id,
        name,
        key_hash: hashKey(key),
        key_prefix: keyPrefix(key),
        scopes,
        expires_at: expiresAt,
      });
      return {
        key,
        key_id: keyId,
        name,
        account_id: account.account_id,
        account_name: account.name,
        plan: account.plan,
        scopes,
        owner: scopes.includes(KEYS_WRITE),
        expires_at: expiresAt,
        account_created: !existing,
      };
    },
    { serialiseOn: `account:${input.account}` },
  );
  authChanged(state);
  return created;
}

/** The plan a new account gets when `keys create` names none. */
export const DEFAULT_ACCOUNT_PLAN = 'entry';

async function createAccount(
  tx: StateQueryable,
  name: string,
  requested: string | null | undefined,
): Promise<q.AccountRow> {
  if (name.startsWith('acct_')) throw new KeyRequestError(`no account with id ${name}`);
  const plan = requested ?? DEFAULT_ACCOUNT_PLAN;
  await requirePlan(tx, plan);
  const row = { account_id: newId('acct'), name, plan };
  await q.insertAccount(tx, row);
  return { ...row, created_at: new Date() };
}

/** The shown part of a key (`cds_` and 8 characters), enough to tell keys apart and never enough to use one. */
export function keyPrefix(key: string): string {
  return key.slice(0, 12);
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
    key_id: row.key_id,
    name: row.name,
    account_id: row.account_id,
    account_name: row.account_name,
    plan: row.plan,
    key_prefix: row.key_prefix,
    scopes: row.scopes,
    created_at: timestampText(row.created_at),
    expires_at: optionalTimestamp(row.expires_at),
    last_used_at: optionalTimestamp(row.last_used_at),
    status: keyStatus(row, now),
  }));
}

/** The operator's revoke: any account's key, at once. */
export async function revokeKey(state: StateDb, keyId: string): Promise<void> {
  if (!(await q.revokeKey(state, keyId))) throw new KeyRequestError(`no active key with id ${keyId}`);
  authChanged(state);
}

/** Reads what a secret resolves to (one indexed lookup); null for one that is malformed or unknown. */
export async function lookupKey(state: StateDb, presented: string): Promise<KeyLookup | null> {
  if (!looksLikeKey(presented)) return null;
  const row = await q.findKeyByHash(state, hashKey(presented));
  if (!row) return null;
  const ends = [
    row.expires_at?.getTime(),
    row.via_previous ? (row.previous_expires_at?.getTime() ?? 0) : undefined,
  ].filter((t): t is number => t !== undefined);
  const expiresAt = ends.length > 0 ? Math.min(...ends) : null;
  return {
    principal: {
      keyId: row.key_id,
      accountId: row.account_id,
      accountName: row.account_name,
      plan: row.plan,
      scopes: new Set(row.scopes),
      expiresAt,
    },
    revoked: row.revoked_at !== null,
    expiresAt,
  };
}

/** The principal of a lookup while the secret is live at `now`, else null. */
export function livePrincipal(lookup: KeyLookup | null, now: number): Principal | null {
  if (!lookup || lookup.revoked) return null;
  if (lookup.expiresAt !== null && lookup.expiresAt <= now) return null;
  return lookup.principal;
}

/** The principal for a presented key, or null when it is unknown, revoked or expired (uncached; the server uses `PrincipalCache`). */
export async function authenticate(state: StateDb, presented: string, now = Date.now()): Promise<Principal | null> {
  return livePrincipal(await lookupKey(state, presented), now);
}

/** A key's status at `now`. */
export function keyStatus(row: Pick<q.ApiKeyRow, 'revoked_at' | 'expires_at'>, now: number): KeyStatus {
  if (row.revoked_at) return 'revoked';
  if (row.expires_at && row.expires_at.getTime() <= now) return 'expired';
  return 'active';
}

function parseScopes(scopes: readonly string[]): Scope[] {
  const bad = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (bad.length > 0) throw new KeyRequestError(`unknown scope ${bad.join(', ')}; scopes are ${SCOPES.join(', ')}`);
  return [...new Set(scopes)] as Scope[];
}

/** `--expires` takes an ISO timestamp or a duration like 30d / 12h. */
function parseExpiry(value: string | null): string | null {
  if (!value) return null;
  const duration = /^(\d+)([dhm])$/.exec(value);
  const ms = duration
    ? Number(duration[1]) * { d: 86_400_000, h: 3_600_000, m: 60_000 }[duration[2] as 'd' | 'h' | 'm']
    : null;
  const at = ms !== null ? Date.now() + ms : (parseTimeText(value) ?? parseDateText(value));
  const date = new Date(at ?? Number.NaN);
  if (Number.isNaN(date.getTime()))
    throw new KeyRequestError(`--expires must be an ISO timestamp or a duration like 30d, not ${value}`);
  return timestampText(date);
}
