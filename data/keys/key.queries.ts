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
  key_prefix: string;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

export interface KeyWithAccountRow extends ApiKeyRow {
  account_name: string;
  plan: string;
}

type Db = StateQueryable;

export function findAccount(db: Db, idOrName: string): Promise<AccountRow | undefined> {
  return db.one<AccountRow>('SELECT * FROM accounts WHERE account_id = ? OR name = ?', [idOrName, idOrName]);
}

export async function insertAccount(db: Db, account: { account_id: string; name: string; plan: string }): Promise<void> {
  await db.run('INSERT INTO accounts (account_id, name, plan) VALUES (?, ?, ?)', [account.account_id, account.name, account.plan]);
}

export async function updateAccountPlan(db: Db, accountId: string, plan: string): Promise<void> {
  await db.run('UPDATE accounts SET plan = ? WHERE account_id = ?', [plan, accountId]);
}

export async function insertKey(db: Db, key: {
  key_id: string; account_id: string; key_hash: string; key_prefix: string; scopes: string[]; expires_at: string | null;
}): Promise<void> {
  await db.run(`INSERT INTO api_keys (key_id, account_id, key_hash, key_prefix, scopes, expires_at)
    VALUES (?, ?, ?, ?, ?, ?::TIMESTAMP)`,
  [key.key_id, key.account_id, key.key_hash, key.key_prefix, key.scopes, key.expires_at]);
}

/** The key with this hash and its account, whatever its state (the caller checks expiry and revocation). */
export function findKeyByHash(db: Db, keyHash: string): Promise<KeyWithAccountRow | undefined> {
  return db.one<KeyWithAccountRow>(`SELECT k.key_id, k.account_id, k.key_prefix, k.scopes, k.created_at, k.expires_at,
      k.revoked_at, a.name AS account_name, a.plan
    FROM api_keys k JOIN accounts a USING (account_id) WHERE k.key_hash = ?`, [keyHash]);
}

export function listKeys(db: Db, accountId: string | null): Promise<KeyWithAccountRow[]> {
  return db.all<KeyWithAccountRow>(`SELECT k.key_id, k.account_id, k.key_prefix, k.scopes, k.created_at, k.expires_at,
      k.revoked_at, a.name AS account_name, a.plan
    FROM api_keys k JOIN accounts a USING (account_id)
    WHERE ?::VARCHAR IS NULL OR k.account_id = ? ORDER BY k.created_at, k.key_id`, [accountId, accountId]);
}

/** Marks a key revoked; answers false when there is no such live key. */
export async function revokeKey(db: Db, keyId: string): Promise<boolean> {
  const changed = await db.run('UPDATE api_keys SET revoked_at = current_timestamp WHERE key_id = ? AND revoked_at IS NULL', [keyId]);
  return changed > 0;
}

/**
 * A fingerprint of every key and account: it moves whenever a key is added,
 * revoked or changes expiry or scopes, or an account changes plan or name (the
 * principal cache drops itself when it moves). DuckDB sums its `hash()`;
 * PostgreSQL sums `hashtextextended` of the same columns.
 */
export async function keysFingerprint(db: Db): Promise<string> {
  const sql = db.dialect === 'duckdb'
    ? `SELECT
      (SELECT count(*)::VARCHAR || ':' || coalesce(sum(hash(key_id, revoked_at, expires_at, scopes)), 0)::VARCHAR FROM api_keys) AS k,
      (SELECT count(*)::VARCHAR || ':' || coalesce(sum(hash(account_id, plan, name)), 0)::VARCHAR FROM accounts) AS a`
    : `SELECT
      (SELECT count(*)::VARCHAR || ':' || coalesce(sum(hashtextextended(concat_ws('|', key_id, revoked_at, expires_at,
          array_to_string(scopes, ',')), 0)::NUMERIC), 0)::VARCHAR FROM api_keys) AS k,
      (SELECT count(*)::VARCHAR || ':' || coalesce(sum(hashtextextended(concat_ws('|', account_id, plan, name), 0)::NUMERIC), 0)::VARCHAR
       FROM accounts) AS a`;
  const row = await db.one<{ k: unknown; a: unknown }>(sql);
  return `${String(row?.k)}|${String(row?.a)}`;
}
