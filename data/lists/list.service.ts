import { LimitExceededError, NotFoundError } from '../errors.js';
import { newId } from '../ids.js';
import type { StateDb, TransactionOptions } from '../state/state-db.js';
import { toCreatorList, type CreatorList } from './list.mapper.js';
import * as q from './list.queries.js';

/** The plan limits lists obey (config `planLimits[plan]`); `null` means unlimited. */
export interface ListLimits {
  lists: number | null;
  creatorsPerList: number | null;
}

/**
 * An account's list writes run one at a time, across every API process: the
 * plan checks (lists per account, creators per list) count and then write, and
 * two writers counting at once could both pass.
 */
export function listWrites(accountId: string): TransactionOptions {
  return { serialiseOn: `lists:${accountId}` };
}

/** One page of the account's lists, oldest first; fetch `limit + 1` to know whether more follow. */
export async function listLists(
  state: StateDb,
  accountId: string,
  afterId: string | null,
  limit: number,
): Promise<CreatorList[]> {
  return (await q.selectLists(state, accountId, afterId, limit)).map(toCreatorList);
}

/** The account's list, or a 404 — another account's list is indistinguishable from none. */
export async function getList(state: StateDb, accountId: string, listId: string): Promise<CreatorList> {
  const row = await q.selectList(state, accountId, listId);
  if (!row) throw notFound(listId);
  return toCreatorList(row);
}

/**
 * Creates a list; the count check and the insert share one transaction so two
 * concurrent creates cannot both slip under the plan limit.
 */
export async function createList(
  state: StateDb,
  accountId: string,
  input: { name: string; description?: string | null | undefined },
  limits: ListLimits,
  now = Date.now(),
): Promise<CreatorList> {
  const listId = newId('lst', now);
  return state.transaction(async (tx) => {
    if (limits.lists !== null && (await q.countLists(tx, accountId)) >= limits.lists) {
      throw new LimitExceededError(`your plan allows ${limits.lists} lists; delete one first`, {
        name: 'lists',
        value: limits.lists,
      });
    }
    await q.insertList(tx, {
      list_id: listId,
      account_id: accountId,
      name: input.name,
      description: input.description ?? null,
      at: now,
    });
    const row = await q.selectList(tx, accountId, listId);
    if (!row) throw new Error(`list ${listId} vanished after insert`);
    return toCreatorList(row);
  }, listWrites(accountId));
}

/** Renames / re-describes the account's list (absent fields unchanged; description null clears it). */
export async function updateList(
  state: StateDb,
  accountId: string,
  listId: string,
  patch: { name?: string | undefined; description?: string | null | undefined },
  now = Date.now(),
): Promise<CreatorList> {
  return state.transaction(async (tx) => {
    const clean: { name?: string; description?: string | null } = {};
    if (patch.name !== undefined) clean.name = patch.name;
    if (patch.description !== undefined) clean.description = patch.description;
    if ((await q.updateList(tx, accountId, listId, clean, now)) === 0) throw notFound(listId);
    const row = await q.selectList(tx, accountId, listId);
    if (!row) throw notFound(listId);
    return toCreatorList(row);
  }, listWrites(accountId));
}

/** Deletes the account's list and its memberships; 404 when there is none. */
export async function deleteList(state: StateDb, accountId: string, listId: string): Promise<void> {
  const deleted = await state.transaction((tx) => q.deleteList(tx, accountId, listId), listWrites(accountId));
  if (!deleted) throw notFound(listId);
}

/** The 404 for a list that is missing or another account's (the same answer, on purpose). */
export function notFound(listId: string): NotFoundError {
  return new NotFoundError(`no list ${listId} in your account`);
}
