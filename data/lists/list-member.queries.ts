import { CREATOR_ITEM_COLUMNS } from '../creators/creator-item.js';
import { sqlTimestamp } from '../sql.js';
import type { Queryable, Store } from '../store.js';

const ISO = `'%Y-%m-%dT%H:%M:%S.%gZ'`;
const ITEM_COLUMNS = CREATOR_ITEM_COLUMNS.map((c) => `c.${c}`).join(', ');

/** A member row: the Creator item columns plus when it joined and its keyset. */
export interface MemberRow extends Record<string, unknown> {
  creator_id: number;
  added_us: number;
  added_at: string;
}

/**
 * Members in (added_at, creator_id) order after a keyset; `added_us` is added_at
 * in epoch microseconds. The page is cut from `list_members` before the join,
 * so only the page's creators are looked up.
 */
export function selectMembers(store: Store, listId: string, after: readonly [number, number] | null, limit: number): Promise<MemberRow[]> {
  return store.all<MemberRow>(`WITH page AS (
      SELECT creator_id, added_at FROM list_members
      WHERE list_id = ? AND (?::BIGINT IS NULL OR (epoch_us(added_at), creator_id) > (?::BIGINT, ?::INTEGER))
      ORDER BY added_at, creator_id LIMIT ?)
    SELECT ${ITEM_COLUMNS}, c.creator_id, epoch_us(page.added_at) AS added_us, strftime(page.added_at, ${ISO}) AS added_at
    FROM page JOIN creators c ON c.creator_id = page.creator_id
    ORDER BY page.added_at, page.creator_id`,
  [listId, after?.[0] ?? null, after?.[0] ?? null, after?.[1] ?? null, limit]);
}

/** A creator matching one requested (handle, platform?), by the request's index. */
export interface HandleHit extends Record<string, unknown> {
  idx: number;
  creator_id: number;
  platform: string;
}

/**
 * Every creator matching the requests, in one statement. The batch travels as
 * one JSON parameter (binding long VARCHAR lists is ~20× slower), and the join
 * is an equi-join on `handle` with the platform check after it, so it stays a
 * hash join (an OR in the join condition falls back to a nested loop).
 * Requests without a platform match the handle on every platform.
 */
export function resolveHandles(q: Queryable, requests: ReadonlyArray<{ handle: string; platform?: string | undefined }>): Promise<HandleHit[]> {
  if (requests.length === 0) return Promise.resolve([]);
  const batch = JSON.stringify(requests.map((r, i) => ({ h: r.handle, p: r.platform ?? '', i })));
  return q.all<HandleHit>(`WITH req AS (
      SELECT r.h AS handle, r.p AS platform, r.i AS idx
      FROM (SELECT unnest(from_json(?::VARCHAR, '[{"h":"VARCHAR","p":"VARCHAR","i":"INTEGER"}]')) AS r))
    SELECT req.idx, c.creator_id, c.platform
    FROM req JOIN creators c ON c.handle = req.handle
    WHERE req.platform = '' OR c.platform = req.platform
    ORDER BY req.idx, c.platform`, [batch]);
}

/** Current member count, and how many of `creatorIds` are already members. */
export async function memberCounts(q: Queryable, listId: string, creatorIds: readonly number[]): Promise<{ total: number; present: number }> {
  const row = await q.one<{ total: number; present: number }>(`SELECT
      (SELECT count(*) FROM list_members WHERE list_id = ?) AS total,
      (SELECT count(*) FROM list_members WHERE list_id = ? AND creator_id IN (SELECT unnest(?::INTEGER[]))) AS present`,
  [listId, listId, creatorIds.length > 0 ? creatorIds : [-1]]);
  return { total: row?.total ?? 0, present: row?.present ?? 0 };
}

/** Adds the creators not yet on the list, all in one statement; answers how many were added. */
export function insertMembers(q: Queryable, listId: string, creatorIds: readonly number[], at: number): Promise<number> {
  if (creatorIds.length === 0) return Promise.resolve(0);
  return q.run(`INSERT INTO list_members (list_id, creator_id, added_at)
    SELECT ?, id, ?::TIMESTAMP FROM (SELECT DISTINCT unnest(?::INTEGER[]) AS id) ids
    WHERE id NOT IN (SELECT creator_id FROM list_members WHERE list_id = ?)`,
  [listId, sqlTimestamp(at), creatorIds, listId]);
}

/** Members of the list with this handle (optionally on one platform). */
export function findMembersByHandle(q: Queryable | Store, listId: string, handle: string, platform: string | null): Promise<Array<{ creator_id: number; platform: string }>> {
  return q.all(`SELECT c.creator_id, c.platform FROM list_members m JOIN creators c ON c.creator_id = m.creator_id
    WHERE m.list_id = ? AND c.handle = ? AND (?::VARCHAR IS NULL OR c.platform = ?) ORDER BY c.platform`,
  [listId, handle, platform, platform]);
}

/** Takes one creator off the list; answers rows deleted (0 or 1). */
export function deleteMember(q: Queryable, listId: string, creatorId: number): Promise<number> {
  return q.run('DELETE FROM list_members WHERE list_id = ? AND creator_id = ?', [listId, creatorId]);
}
