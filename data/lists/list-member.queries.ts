import { CREATOR_ITEM_COLUMNS } from '../creators/creator-item.js';
import { sqlTimestamp } from '../sql.js';
import type { StateQueryable } from '../state/state-db.js';
import type { Queryable, Store } from '../store.js';
import { timestampSql } from '../timestamps.js';

const ITEM_COLUMNS = CREATOR_ITEM_COLUMNS.join(', ');

/** A member row: the Creator item columns plus when it joined and its keyset (`added_us` is added_at in epoch µs). */
export interface MemberRow extends Record<string, unknown> {
  creator_id: number;
  added_us: number;
  added_at: string;
}

/** One membership of a page, read from the state: who, and when. */
type MembershipRow = Pick<MemberRow, 'creator_id' | 'added_us' | 'added_at'>;

/**
 * Members in (added_at, creator_id) order after a keyset. The page is cut from
 * `list_members` in the service state first, then only its creators are read
 * from the analytical store (the two may be different databases) and put back
 * in page order. A member whose creator the store no longer holds is left out,
 * as the join it replaces did.
 */
export async function selectMembers(
  state: StateQueryable,
  store: Store | Queryable,
  listId: string,
  after: readonly [number, number] | null,
  limit: number,
): Promise<MemberRow[]> {
  const page = await selectMemberships(state, listId, after, limit);
  const items = await selectCreatorItems(
    store,
    page.map((p) => p.creator_id),
  );
  return page.flatMap((p) => {
    const item = items.get(p.creator_id);
    return item ? [{ ...item, ...p }] : [];
  });
}

/** Ordered by the keyset itself, so PostgreSQL seeks and reads it off `list_members_keyset` (PG migration 10). */
function selectMemberships(
  state: StateQueryable,
  listId: string,
  after: readonly [number, number] | null,
  limit: number,
): Promise<MembershipRow[]> {
  return state.all<MembershipRow>(
    `SELECT m.creator_id, epoch_us(m.added_at) AS added_us, ${timestampSql('m.added_at')} AS added_at
    FROM list_members m
    WHERE m.list_id = ? AND (?::BIGINT IS NULL OR (epoch_us(m.added_at), m.creator_id) > (?::BIGINT, ?::INTEGER))
    ORDER BY epoch_us(m.added_at), m.creator_id LIMIT ?`,
    [listId, after?.[0] ?? null, after?.[0] ?? null, after?.[1] ?? null, limit],
  );
}

/** The Creator item columns of these creators, by id. */
async function selectCreatorItems(
  store: Store | Queryable,
  creatorIds: readonly number[],
): Promise<Map<number, Record<string, unknown>>> {
  if (creatorIds.length === 0) return new Map();
  const rows = await store.all(
    `SELECT creator_id, ${ITEM_COLUMNS} FROM creators
    WHERE creator_id IN (SELECT unnest(?::INTEGER[]))`,
    [creatorIds],
  );
  return new Map(rows.map((r) => [Number(r['creator_id']), r]));
}

/** A creator matching one requested (handle, platform?), by the request's index. */
export interface HandleHit extends Record<string, unknown> {
  idx: number;
  creator_id: number;
  platform: string;
}

/**
 * Every creator matching the requests, in one statement on the analytical
 * store. The batch travels as one JSON parameter (binding long VARCHAR lists is
 * ~20× slower), and the join is an equi-join on `handle` with the platform check
 * after it, so it stays a hash join (an OR in the join condition falls back to a
 * nested loop). Requests without a platform match the handle on every platform.
 */
export function resolveHandles(
  store: Store | Queryable,
  requests: ReadonlyArray<{ handle: string; platform?: string | undefined }>,
): Promise<HandleHit[]> {
  if (requests.length === 0) return Promise.resolve([]);
  const batch = JSON.stringify(requests.map((r, i) => ({ h: r.handle, p: r.platform ?? '', i })));
  return store.all<HandleHit>(
    `WITH req AS (
      SELECT r.h AS handle, r.p AS platform, r.i AS idx
      FROM (SELECT unnest(from_json(?::VARCHAR, '[{"h":"VARCHAR","p":"VARCHAR","i":"INTEGER"}]')) AS r))
    SELECT req.idx, c.creator_id, c.platform
    FROM req JOIN creators c ON c.handle = req.handle
    WHERE req.platform = '' OR c.platform = req.platform
    ORDER BY req.idx, c.platform`,
    [batch],
  );
}

/** Current member count, and how many of `creatorIds` are already members. */
export async function memberCounts(
  q: StateQueryable,
  listId: string,
  creatorIds: readonly number[],
): Promise<{ total: number; present: number }> {
  const row = await q.one<{ total: number; present: number }>(
    `SELECT
      (SELECT count(*) FROM list_members WHERE list_id = ?) AS total,
      (SELECT count(*) FROM list_members WHERE list_id = ? AND creator_id IN (SELECT unnest(?::INTEGER[]))) AS present`,
    [listId, listId, creatorIds.length > 0 ? creatorIds : [-1]],
  );
  return { total: row?.total ?? 0, present: row?.present ?? 0 };
}

/** Adds the creators not yet on the list, all in one statement; answers how many were added. */
export function insertMembers(
  q: StateQueryable,
  listId: string,
  creatorIds: readonly number[],
  at: number,
): Promise<number> {
  if (creatorIds.length === 0) return Promise.resolve(0);
  return q.run(
    `INSERT INTO list_members (list_id, creator_id, added_at)
    SELECT ?::VARCHAR, id, ?::TIMESTAMP FROM (SELECT DISTINCT unnest(?::INTEGER[]) AS id) ids
    WHERE id NOT IN (SELECT creator_id FROM list_members WHERE list_id = ?)`,
    [listId, sqlTimestamp(at), creatorIds, listId],
  );
}

/** A creator a handle names, and its platform. */
export interface HandleCreator extends Record<string, unknown> {
  creator_id: number;
  platform: string;
}

/** The creators with this handle (optionally on one platform), by platform; read from the analytical store. */
export function findCreatorsByHandle(
  store: Store | Queryable,
  handle: string,
  platform: string | null,
): Promise<HandleCreator[]> {
  return store.all<HandleCreator>(
    `SELECT creator_id, platform FROM creators
    WHERE handle = ? AND (?::VARCHAR IS NULL OR platform = ?) ORDER BY platform`,
    [handle, platform, platform],
  );
}

/**
 * Which of a handle's creators (from `findCreatorsByHandle`) are on the list,
 * in the order given: the membership half of a handle lookup, in the state.
 */
export async function findMembersByHandle(
  q: StateQueryable,
  listId: string,
  candidates: readonly HandleCreator[],
): Promise<HandleCreator[]> {
  if (candidates.length === 0) return [];
  const rows = await q.all<{ creator_id: number }>(
    `SELECT creator_id FROM list_members
    WHERE list_id = ? AND creator_id IN (SELECT unnest(?::INTEGER[]))`,
    [listId, candidates.map((c) => c.creator_id)],
  );
  const present = new Set(rows.map((r) => r.creator_id));
  return candidates.filter((c) => present.has(c.creator_id));
}

/** Takes one creator off the list; answers rows deleted (0 or 1). */
export function deleteMember(q: StateQueryable, listId: string, creatorId: number): Promise<number> {
  return q.run('DELETE FROM list_members WHERE list_id = ? AND creator_id = ?', [listId, creatorId]);
}
