import { OWNER_SCOPES } from '../plans/plans.js';
import { ConflictError, DomainError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import type { StateDb } from '../state/state-db.js';
import { optionalTimestamp, timestampText } from '../timestamps.js';
import { authChanged } from './auth-epoch.js';
import * as q from './key.queries.js';
import {
  generateKey,
  hashKey,
  KEYS_WRITE,
  keyPrefix,
  keyStatus,
  type KeyStatus,
  type Principal,
} from './key.service.js';

/** How long a rotated-out secret keeps working when the request names no grace: a day, time to roll the new one out. */
export const DEFAULT_ROTATION_GRACE_SECONDS = 86_400;
/** The longest grace a rotation may give the old secret: a week. */
export const MAX_ROTATION_GRACE_SECONDS = 604_800;

/** Scopes the API never grants: `admin` is the operator's to give (`cds keys create --scopes`). */
const NEVER_GRANTED = new Set(['admin']);
/**
 * Scopes a new key gets only when asked for by name: managing keys, and
 * revealing contacts (metered, audited personal data a key made for a general
 * integration should not carry by default).
 */
const ONLY_WHEN_NAMED: ReadonlySet<string> = new Set(OWNER_SCOPES);

/** A key as the API shows it: never its secret or hash. */
export interface ApiKeyView {
  id: string;
  name: string;
  key_prefix: string;
  scopes: string[];
  /** Holds `keys:write`: may manage the account's keys. */
  owner: boolean;
  status: KeyStatus;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  /** While a rotated-out secret still works: its prefix and when it stops. */
  rotation: { previous_key_prefix: string; previous_expires_at: string } | null;
}

/** A key with its secret, answered once: on creation and on rotation. */
export interface NewKeyView extends ApiKeyView {
  key: string;
}

/** A key row as the API shape. */
export function toApiKeyView(row: q.ApiKeyRow, now: Date): ApiKeyView {
  const status = keyStatus(row, now.getTime());
  const graceLeft =
    status === 'active' && row.previous_key_prefix && row.previous_expires_at && row.previous_expires_at >= now;
  return {
    id: row.key_id,
    name: row.name ?? row.key_prefix,
    key_prefix: row.key_prefix,
    scopes: [...row.scopes].sort(),
    owner: row.scopes.includes(KEYS_WRITE),
    status,
    created_at: timestampText(row.created_at),
    expires_at: optionalTimestamp(row.expires_at),
    last_used_at: optionalTimestamp(row.last_used_at),
    rotation:
      graceLeft && row.previous_expires_at
        ? {
            previous_key_prefix: row.previous_key_prefix ?? '',
            previous_expires_at: timestampText(row.previous_expires_at),
          }
        : null,
  };
}

/**
 * A new key for the caller's account. Its scopes are those asked for, each of
 * which the caller must hold (403 `insufficient_scope` naming the first it
 * lacks); by default the caller's own minus `keys:write`, `contacts:read` and `admin`. `admin` is
 * never granted here; `keys:write` only by a key that has it, and makes the new
 * key an owner key too. Nor can a key grant a longer life than its own: a caller
 * that expires gives the new key its own expiry when none is asked for, and a
 * later one is a 400 naming `expires_at`.
 */
export async function createAccountKey(
  state: StateDb,
  caller: Principal,
  input: {
    name: string;
    scopes?: readonly string[] | undefined;
    expires_at?: string | null | undefined;
  },
  now = new Date(),
): Promise<NewKeyView> {
  const scopes = grantedScopes(caller, input.scopes);
  const expiresAt = grantedExpiry(caller, input.expires_at ?? null);
  const key = generateKey();
  const keyId = newId('key');
  await q.insertKey(state, {
    key_id: keyId,
    account_id: caller.accountId,
    name: input.name,
    key_hash: hashKey(key),
    key_prefix: keyPrefix(key),
    scopes,
    expires_at: expiresAt,
  });
  authChanged(state);
  return { ...(await viewOf(state, caller.accountId, keyId, now)), key };
}

function grantedExpiry(caller: Principal, requested: string | null): string | null {
  if (caller.expiresAt === null) return requested;
  if (requested === null) return timestampText(caller.expiresAt);
  if (Date.parse(requested) > caller.expiresAt) {
    throw ValidationError.field(
      'expires_at',
      `must not be later than the calling key's own expiry, ${timestampText(caller.expiresAt)}: ` +
        'a key cannot grant a longer life than its own',
    );
  }
  return requested;
}

function grantedScopes(caller: Principal, requested: readonly string[] | undefined): string[] {
  if (requested === undefined)
    return [...caller.scopes].filter((s) => !ONLY_WHEN_NAMED.has(s) && !NEVER_GRANTED.has(s)).sort();
  for (const scope of requested) {
    if (NEVER_GRANTED.has(scope)) {
      throw scopeRefused(
        scope,
        `the "${scope}" scope is never granted through the API; the operator grants it with cds keys create`,
      );
    }
    if (!caller.scopes.has(scope))
      throw scopeRefused(scope, `this key lacks the "${scope}" scope, so it cannot grant it`);
  }
  return [...new Set(requested)].sort();
}

function scopeRefused(scope: string, detail: string): DomainError {
  return new DomainError('insufficient_scope', detail, { extensions: { required_scope: scope } });
}

/** A page of the account's keys, oldest first; `after` is the last key of the previous page. */
export async function listAccountKeys(
  state: StateDb,
  accountId: string,
  after: { createdUs: number; keyId: string } | null,
  limit: number,
  now = new Date(),
): Promise<Array<ApiKeyView & { cursor: { createdUs: number; keyId: string } }>> {
  const rows = await q.listAccountKeysPage(state, accountId, after, limit);
  return rows.map((row) => ({
    ...toApiKeyView(row, now),
    cursor: { createdUs: Number(row.created_us), keyId: row.key_id },
  }));
}

/**
 * Revokes one of the account's keys (a key may revoke itself). Revoking a revoked
 * key changes nothing. The account's last live owner key cannot be revoked: the
 * account would lose the means to manage its keys (409 `conflict`).
 */
export async function revokeAccountKey(
  state: StateDb,
  accountId: string,
  keyId: string,
  now = new Date(),
): Promise<void> {
  await state.transaction(
    async (tx) => {
      const row = await q.findAccountKey(tx, accountId, keyId);
      if (!row) throw keyNotFound(keyId);
      if (row.revoked_at) return;
      const liveOwner = keyStatus(row, now.getTime()) === 'active' && row.scopes.includes(KEYS_WRITE);
      if (liveOwner && (await q.countOtherOwnerKeys(tx, accountId, keyId, now)) === 0) {
        throw new ConflictError(
          `${keyId} is the account's last active owner key (the only one with keys:write): ` +
            'create another key with keys:write first, or rotate this one instead of revoking it',
        );
      }
      await q.revokeKey(tx, keyId);
    },
    { serialiseOn: `keys:${accountId}` },
  );
  authChanged(state);
}

/**
 * Gives an active key a new secret, answered once. The old secret keeps working
 * for `graceSeconds` (default a day); a second rotation within the grace ends
 * the first one's old secret at once (one previous secret per key).
 */
export async function rotateAccountKey(
  state: StateDb,
  accountId: string,
  keyId: string,
  graceSeconds = DEFAULT_ROTATION_GRACE_SECONDS,
  now = new Date(),
): Promise<NewKeyView> {
  const key = generateKey();
  await state.transaction(
    async (tx) => {
      const row = await q.findAccountKey(tx, accountId, keyId);
      if (!row) throw keyNotFound(keyId);
      const status = keyStatus(row, now.getTime());
      if (status !== 'active')
        throw new ConflictError(`${keyId} is ${status}; only an active key can be rotated (create a new key instead)`);
      await q.rotateKey(tx, keyId, {
        keyHash: hashKey(key),
        keyPrefix: keyPrefix(key),
        previousExpiresAt: new Date(now.getTime() + graceSeconds * 1000).toISOString(),
      });
    },
    { serialiseOn: `keys:${accountId}` },
  );
  authChanged(state);
  return { ...(await viewOf(state, accountId, keyId, now)), key };
}

async function viewOf(state: StateDb, accountId: string, keyId: string, now: Date): Promise<ApiKeyView> {
  const row = await q.findAccountKey(state, accountId, keyId);
  if (!row) throw keyNotFound(keyId);
  return toApiKeyView(row, now);
}

function keyNotFound(keyId: string): NotFoundError {
  return new NotFoundError(`no key ${keyId} in your account`);
}
