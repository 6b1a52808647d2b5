import { sqlTimestamp } from '../sql.js';
import type { StateQueryable } from '../state/state-db.js';
import { timestampSql } from '../timestamps.js';

/** A `lists` row as the mapper reads it: timestamps already ISO 8601 strings, plus the member count. */
export interface ListRow extends Record<string, unknown> {
  list_id: string;
  name: string;
  description: string | null;
  creators_count: number;
  created_at: string;
  updated_at: string;
}

const LIST_SELECT = `SELECT l.list_id, l.name, l.description,
    (SELECT count(*) FROM list_members m WHERE m.list_id = l.list_id) AS creators_count,
    ${timestampSql('l.created_at')} AS created_at, ${timestampSql('l.updated_at')} AS updated_at
  FROM lists l`;

/** One page of an account's lists in id order (ids sort by creation time), after `afterId`. */
export function selectLists(
  state: StateQueryable,
  accountId: string,
  afterId: string | null,
  limit: number,
): Promise<ListRow[]> {
  return state.all<ListRow>(
    `${LIST_SELECT}
    WHERE l.account_id = ? AND (?::VARCHAR IS NULL OR l.list_id > ?)
    ORDER BY l.list_id LIMIT ?`,
    [accountId, afterId, afterId, limit],
  );
}

/** The list if it belongs to the account. */
export function selectList(q: StateQueryable, accountId: string, listId: string): Promise<ListRow | undefined> {
  return q.one<ListRow>(`${LIST_SELECT} WHERE l.account_id = ? AND l.list_id = ?`, [accountId, listId]);
}

/** How many lists the account has (for the plan limit). */
export async function countLists(q: StateQueryable, accountId: string): Promise<number> {
  const row = await q.one<{ n: number }>('SELECT count(*) AS n FROM lists WHERE account_id = ?', [accountId]);
  return row?.n ?? 0;
}

/** Inserts a new list row created at `at` (epoch ms). */
export function insertList(
  q: StateQueryable,
  row: { list_id: string; account_id: string; name: string; description: string | null; at: number },
): Promise<number> {
  return q.run(
    `INSERT INTO lists (list_id, account_id, name, description, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?::TIMESTAMP, ?::TIMESTAMP)`,
    [row.list_id, row.account_id, row.name, row.description, sqlTimestamp(row.at), sqlTimestamp(row.at)],
  );
}

/** Sets the given fields (undefined = unchanged; description null clears it). Answers rows changed. */
export function updateList(
  q: StateQueryable,
  accountId: string,
  listId: string,
  patch: { name?: string; description?: string | null },
  at: number,
): Promise<number> {
  return q.run(
    `UPDATE lists SET
      name = CASE WHEN ?::BOOLEAN THEN ?::VARCHAR ELSE name END,
      description = CASE WHEN ?::BOOLEAN THEN ?::VARCHAR ELSE description END,
      updated_at = ?::TIMESTAMP
    WHERE account_id = ? AND list_id = ?`,
    [
      patch.name !== undefined,
      patch.name ?? null,
      patch.description !== undefined,
      patch.description ?? null,
      sqlTimestamp(at),
      accountId,
      listId,
    ],
  );
}

/** Marks the list changed (its members moved). */
export function touchList(q: StateQueryable, listId: string, at: number): Promise<number> {
  return q.run('UPDATE lists SET updated_at = ?::TIMESTAMP WHERE list_id = ?', [sqlTimestamp(at), listId]);
}

/** Deletes the list (if the account's) and its members; answers whether a list went. */
export async function deleteList(q: StateQueryable, accountId: string, listId: string): Promise<boolean> {
  const gone = await q.run('DELETE FROM lists WHERE account_id = ? AND list_id = ?', [accountId, listId]);
  if (gone === 0) return false;
  await q.run('DELETE FROM list_members WHERE list_id = ?', [listId]);
  return true;
}
