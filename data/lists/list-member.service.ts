import { AmbiguousHandleError, LimitExceededError, NotFoundError } from '../errors.js';
import { takePage, type KeyedPage } from '../paging.js';
import type { StateDb } from '../state/state-db.js';
import type { Store } from '../store.js';
import * as m from './list-member.queries.js';
import { toListMember, type ListMember } from './list.mapper.js';
import * as q from './list.queries.js';
import { listWrites, notFound, type ListLimits } from './list.service.js';

/** A requested creator: a normalised handle (`@name`) and optionally its platform. */
export interface MemberRequest {
  handle: string;
  platform?: string | undefined;
}

/** Why a requested creator was not added. */
export interface NotAdded {
  handle: string;
  platform: string | null;
  reason: 'not_found' | 'ambiguous_handle';
  /** For `ambiguous_handle`: the platforms the handle exists on. */
  platforms?: string[];
}

/** The answer to a bulk add (README.md). */
export interface AddResult {
  added: number;
  already_present: number;
  not_found: NotAdded[];
}

/** A member page; its keyset is [added_at in epoch µs, creator_id]. */
export type MemberPage = KeyedPage<ListMember, [number, number]>;

/** Members of the account's list, oldest first; `limit + 1` rows are read to know whether more follow. */
export async function listMembers(
  state: StateDb,
  store: Store,
  accountId: string,
  listId: string,
  after: readonly [number, number] | null,
  limit: number,
): Promise<MemberPage> {
  if (!(await q.selectList(state, accountId, listId))) throw notFound(listId);
  const rows = await m.selectMembers(state, store, listId, after, limit + 1);
  return takePage(rows, limit, (row) => [row.added_us, row.creator_id], toListMember);
}

/**
 * Adds up to 1,000 creators in a fixed number of set-based statements (resolve,
 * count, insert), whatever the batch size. Re-adding is harmless: members
 * already there count as `already_present`. A handle without a platform that
 * exists on several platforms is not guessed: it is reported in `not_found`
 * with reason `ambiguous_handle` and its platforms. The whole batch is refused
 * (403 `limit_exceeded`) when the new members would pass the plan's cap.
 * Handles resolve in the analytical store before the state transaction, so the
 * account's serialised section only counts and writes.
 */
export async function addMembers(
  state: StateDb,
  store: Store,
  accountId: string,
  listId: string,
  requests: readonly MemberRequest[],
  limits: ListLimits,
  now = Date.now(),
): Promise<AddResult> {
  const unique = dedupe(requests);
  const { wanted, notFound: notFoundItems } = pickCreators(unique, await m.resolveHandles(store, unique));
  return state.transaction(async (tx) => {
    if (!(await q.selectList(tx, accountId, listId))) throw notFound(listId);
    const counts = await m.memberCounts(tx, listId, wanted);
    const cap = limits.creatorsPerList;
    if (cap !== null && counts.total + wanted.length - counts.present > cap) {
      throw new LimitExceededError(
        `your plan allows ${cap} creators per list; the list has ${counts.total} and this would add ${wanted.length - counts.present}`,
        { name: 'creators_per_list', value: cap },
      );
    }
    const added = await m.insertMembers(tx, listId, wanted, now);
    if (added > 0) await q.touchList(tx, listId, now);
    return { added, already_present: wanted.length - added, not_found: notFoundItems };
  }, listWrites(accountId));
}

/** Removes one creator from the account's list; several members with that handle and no platform is a 409. */
export async function removeMember(
  state: StateDb,
  store: Store,
  accountId: string,
  listId: string,
  handle: string,
  platform: string | null,
  now = Date.now(),
): Promise<void> {
  const candidates = await m.findCreatorsByHandle(store, handle, platform);
  await state.transaction(async (tx) => {
    if (!(await q.selectList(tx, accountId, listId))) throw notFound(listId);
    const members = await m.findMembersByHandle(tx, listId, candidates);
    if (members.length === 0) {
      throw new NotFoundError(`${handle}${platform ? ` on ${platform}` : ''} is not on list ${listId}`);
    }
    if (members.length > 1)
      throw new AmbiguousHandleError(
        handle,
        members.map((x) => x.platform),
      );
    await m.deleteMember(tx, listId, members[0]!.creator_id);
    await q.touchList(tx, listId, now);
  }, listWrites(accountId));
}

/** The creators to add (requests that name exactly one), and the requests that name none or several. */
function pickCreators(
  requests: readonly MemberRequest[],
  hits: readonly m.HandleHit[],
): { wanted: number[]; notFound: NotAdded[] } {
  const byRequest = new Map<number, m.HandleHit[]>();
  for (const h of hits) byRequest.set(h.idx, [...(byRequest.get(h.idx) ?? []), h]);
  const ids = new Set<number>();
  const notFoundItems: NotAdded[] = [];
  requests.forEach((req, i) => {
    const found = byRequest.get(i) ?? [];
    if (found.length === 1) ids.add(found[0]!.creator_id);
    else
      notFoundItems.push(
        notAdded(
          req,
          found.map((h) => h.platform),
        ),
      );
  });
  return { wanted: [...ids], notFound: notFoundItems };
}

function dedupe(requests: readonly MemberRequest[]): MemberRequest[] {
  const seen = new Map<string, MemberRequest>();
  for (const r of requests) seen.set(`${r.handle}\n${r.platform ?? ''}`, r);
  return [...seen.values()];
}

function notAdded(req: MemberRequest, platforms: string[]): NotAdded {
  const base = { handle: req.handle, platform: req.platform ?? null };
  return platforms.length > 1 ? { ...base, reason: 'ambiguous_handle', platforms } : { ...base, reason: 'not_found' };
}
