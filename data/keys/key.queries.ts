import type { StateQueryable } from '../state/state-db.js';

export interface AccountRow extends Record<string, unknown> {
  account_id: string;
  name: string;
  plan: string;
  created_at: Date;
}

export interface ApiKeyRow extends Record<string, unknown> {
  key_id: string;
  account_id: string;
  name: string | null;
  key_prefix: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
  previous_key_prefix: string | null;
  previous_expires_at: Date | null;
}

export interface KeyWithAccountRow extends ApiKeyRow {
  account_name: string;
  plan: string;
}

/** A key found by a presented secret: `via_previous` when the secret is the one a rotation replaced. */
export interface KeyByHashRow extends KeyWithAccountRow {
  via_previous: boolean;
}

const KEY_COLUMNS = `k.key_id, k.account_id, k.name, k.key_prefix, k.scopes, k.created_at, k.expires_at, k.revoked_at, k.last_used_at,
  k.previous_key_prefix, k.previous_expires_at`;

export function findAccount(db: StateQueryable, idOrName: string): Promise<AccountRow | undefined> {
  return db.one<AccountRow>('SELECT * FROM accounts WHERE account_id = ? OR name = ?', [idOrName, idOrName]);
}

export async function insertAccount(
  db: StateQueryable,
  account: { account_id: string; name: string; plan: string },
): Promise<void> {
  await db.run('INSERT INTO accounts (account_id, name, plan) VALUES (?, ?, ?)', [
    account.account_id,
    account.name,
    account.plan,
  ]);
}

export async function insertKey(
  db: StateQueryable,
  key: {
    key_id: string;
    account_id: string;
    name: string;
    key_hash: string;
    key_prefix: string;
    scopes: string[];
    expires_at: string | null;
  },
): Promise<void> {
  await db.run(
    `INSERT INTO api_keys (key_id, account_id, name, key_hash, key_prefix, scopes, expires_at)
    VALUES (?, ?, ?, ?, ?, ?, ?::TIMESTAMP)`,
    [key.key_id, key.account_id, key.name, key.key_hash, key.key_prefix, key.scopes, key.expires_at],
  );
}

/**
 * The key whose current or previous (rotated-out) secret has this hash, and its
 * account, whatever its state (the caller checks expiry, revocation and the grace
 * period). Two index lookups rather than one OR, which DuckDB would scan for.
 */
export function findKeyByHash(db: StateQueryable, keyHash: string): Promise<KeyByHashRow | undefined> {
  return db.one<KeyByHashRow>(
    `SELECT * FROM (
      SELECT ${KEY_COLUMNS}, a.name AS account_name, a.plan, false AS via_previous
      FROM api_keys k JOIN accounts a USING (account_id) WHERE k.key_hash = ?
      UNION ALL
      SELECT ${KEY_COLUMNS}, a.name AS account_name, a.plan, true AS via_previous
      FROM api_keys k JOIN accounts a USING (account_id) WHERE k.previous_key_hash = ?
    ) AS found ORDER BY via_previous LIMIT 1`,
    [keyHash, keyHash],
  );
}

/** Every key (of one account, or all), oldest first: the operator's listing. */
export function listKeys(db: StateQueryable, accountId: string | null): Promise<KeyWithAccountRow[]> {
  return db.all<KeyWithAccountRow>(
    `SELECT ${KEY_COLUMNS}, a.name AS account_name, a.plan
    FROM api_keys k JOIN accounts a USING (account_id)
    WHERE ?::VARCHAR IS NULL OR k.account_id = ? ORDER BY k.created_at, k.key_id`,
    [accountId, accountId],
  );
}

/** A page of one account's keys in (created_at, key_id) order, after a keyset position. */
export function listAccountKeysPage(
  db: StateQueryable,
  accountId: string,
  after: { createdUs: number; keyId: string } | null,
  limit: number,
): Promise<Array<ApiKeyRow & { created_us: number }>> {
  // the keyset is the stored microseconds: a JS Date (milliseconds) would land before the row it came from
  return db.all<ApiKeyRow & { created_us: number }>(
    `SELECT ${KEY_COLUMNS}, epoch_us(k.created_at)::FLOAT8 AS created_us FROM api_keys k
    WHERE k.account_id = ? AND (?::BIGINT IS NULL OR epoch_us(k.created_at) > ?::BIGINT
      OR (epoch_us(k.created_at) = ?::BIGINT AND k.key_id > ?::VARCHAR))
    ORDER BY epoch_us(k.created_at), k.key_id LIMIT ?`,
    [
      accountId,
      after?.createdUs ?? null,
      after?.createdUs ?? null,
      after?.createdUs ?? null,
      after?.keyId ?? null,
      limit,
    ],
  );
}

/** One key of one account (another account's key is not found). */
export function findAccountKey(db: StateQueryable, accountId: string, keyId: string): Promise<ApiKeyRow | undefined> {
  return db.one<ApiKeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys k WHERE k.account_id = ? AND k.key_id = ?`, [
    accountId,
    keyId,
  ]);
}

/** Live owner keys (holding `keys:write`, not revoked, not expired) of an account, other than `exceptKeyId`. */
export async function countOtherOwnerKeys(
  db: StateQueryable,
  accountId: string,
  exceptKeyId: string,
  now: Date,
): Promise<number> {
  const row = await db.one<{ n: number }>(
    `SELECT count(*)::INTEGER AS n FROM api_keys
    WHERE account_id = ? AND key_id <> ? AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?::TIMESTAMP)
      AND list_contains(scopes, 'keys:write')`,
    [accountId, exceptKeyId, now.toISOString()],
  );
  return Number(row?.n ?? 0);
}

/** Marks a key revoked; answers false when there is no such live key. */
export async function revokeKey(db: StateQueryable, keyId: string): Promise<boolean> {
  const changed = await db.run(
    'UPDATE api_keys SET revoked_at = current_timestamp WHERE key_id = ? AND revoked_at IS NULL',
    [keyId],
  );
  return changed > 0;
}

/** Gives a key a new secret; the current one becomes the previous, valid until `previousExpiresAt`. */
export async function rotateKey(
  db: StateQueryable,
  keyId: string,
  next: { keyHash: string; keyPrefix: string; previousExpiresAt: string },
): Promise<void> {
  await db.run(
    `UPDATE api_keys SET previous_key_hash = key_hash, previous_key_prefix = key_prefix, previous_expires_at = ?::TIMESTAMP,
      key_hash = ?, key_prefix = ? WHERE key_id = ?`,
    [next.previousExpiresAt, next.keyHash, next.keyPrefix, keyId],
  );
}

/** Moves `last_used_at` forward (never back: several processes flush in any order). */
export async function touchLastUsed(db: StateQueryable, keyId: string, at: string): Promise<void> {
  await db.run(
    `UPDATE api_keys SET last_used_at = ?::TIMESTAMP
    WHERE key_id = ? AND (last_used_at IS NULL OR last_used_at < ?::TIMESTAMP)`,
    [at, keyId, at],
  );
}

/**
 * A fingerprint of every key and account: it moves whenever a key is added,
 * revoked, rotated or changes expiry or scopes, or an account changes plan or
 * name (the principal cache drops itself when it moves): a sum of row hashes
 * (`StateSql.hashSum`).
 */
export async function keysFingerprint(db: StateQueryable): Promise<string> {
  const keys = db.sql.hashSum(
    ['key_id', 'key_hash', 'revoked_at', 'expires_at', 'scopes', 'previous_expires_at'],
    ['scopes'],
  );
  const accounts = db.sql.hashSum(['account_id', 'plan', 'name']);
  const sql = `SELECT
      (SELECT count(*)::VARCHAR || ':' || coalesce(${keys}, 0)::VARCHAR FROM api_keys) AS k,
      (SELECT count(*)::VARCHAR || ':' || coalesce(${accounts}, 0)::VARCHAR FROM accounts) AS a`;
  const row = await db.one<{ k: unknown; a: unknown }>(sql);
  return `${String(row?.k)}|${String(row?.a)}`;
}
