import { sqlTimestamp } from '../../data/sql.js';
import type { StateDb } from '../../data/state/state-db.js';

export interface IdempotencyRow extends Record<string, unknown> {
  method: string;
  path: string;
  body_hash: string;
  status_code: number;
  response_body: string | null;
  response_headers: string | null;
}

export function findLive(
  state: StateDb,
  accountId: string,
  key: string,
  since: number,
): Promise<IdempotencyRow | undefined> {
  return state.one<IdempotencyRow>(
    `SELECT method, path, body_hash, status_code, response_body, response_headers::VARCHAR AS response_headers
    FROM idempotency_keys WHERE account_id = ? AND idempotency_key = ? AND created_at > ?::TIMESTAMP`,
    [accountId, key, sqlTimestamp(since)],
  );
}

/** Stores a response; an expired record under the same key is replaced. */
export async function save(
  state: StateDb,
  row: {
    account_id: string;
    key: string;
    method: string;
    path: string;
    body_hash: string;
    status: number;
    body: string | null;
    headers: Record<string, string>;
    now: number;
  },
): Promise<void> {
  await state.transaction(async (tx) => {
    await tx.run('DELETE FROM idempotency_keys WHERE account_id = ? AND idempotency_key = ?', [
      row.account_id,
      row.key,
    ]);
    await tx.run(
      `INSERT INTO idempotency_keys (account_id, idempotency_key, method, path, body_hash, status_code,
        response_body, response_headers, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?::JSON, ?::TIMESTAMP)`,
      [
        row.account_id,
        row.key,
        row.method,
        row.path,
        row.body_hash,
        row.status,
        row.body,
        JSON.stringify(row.headers),
        sqlTimestamp(row.now),
      ],
    );
  });
}

/** Drops records older than `before` (a maintenance job may call this). */
export async function purgeExpired(state: StateDb, before: number): Promise<number> {
  return state.run('DELETE FROM idempotency_keys WHERE created_at <= ?::TIMESTAMP', [sqlTimestamp(before)]);
}
