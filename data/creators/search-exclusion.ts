import { ValidationError } from '../errors.js';
import type { StateQueryable } from '../state/state-db.js';
import { Exclusion } from './search-context.js';

/** Members cached per list version; a list's members are read again only when the list changed. */
const CACHED_LISTS = 256;

/**
 * Resolves `exclude_list` for one account: its lists' members, read from the
 * service state (the store itself, or PostgreSQL in cluster mode). A list id
 * that is not one of the account's lists is a 400 naming `exclude_list`,
 * whether it belongs to another account or to none. Members are cached per
 * list version (`updated_at`, bumped whenever a member joins or leaves, and the
 * member count), so a search that excludes a list reads one small row per list
 * and its cached answers are keyed on those versions.
 */
export class ExclusionResolver {
  private readonly members = new Map<string, Int32Array>();

  constructor(private readonly state: StateQueryable) {}

  async resolve(accountId: string | null, listIds: readonly string[]): Promise<Exclusion> {
    const versions =
      accountId === null
        ? []
        : await this.state.all<{ list_id: string; v: number; n: number }>(
            `SELECT l.list_id, epoch_us(l.updated_at) AS v, (SELECT count(*) FROM list_members m WHERE m.list_id = l.list_id) AS n
       FROM lists l WHERE l.account_id = ? AND l.list_id IN (SELECT unnest(?::VARCHAR[])) ORDER BY l.list_id`,
            [accountId, [...listIds]],
          );
    const unknown = listIds.filter((id) => !versions.some((v) => v.list_id === id));
    if (unknown.length > 0) throw ValidationError.param('exclude_list', `not one of your lists: ${unknown.join(', ')}`);
    const parts = await Promise.all(
      versions.map((v) => this.membersOf(v.list_id, `${v.list_id}@${Number(v.v)}/${Number(v.n)}`)),
    );
    return new Exclusion(versions.map((v) => `${v.list_id}@${Number(v.v)}/${Number(v.n)}`).join(','), union(parts));
  }

  private async membersOf(listId: string, version: string): Promise<Int32Array> {
    const hit = this.members.get(version);
    if (hit) return hit;
    const rows = await this.state.all<{ creator_id: number }>('SELECT creator_id FROM list_members WHERE list_id = ?', [
      listId,
    ]);
    const ids = Int32Array.from(rows, (r) => Number(r.creator_id)).sort();
    this.members.set(version, ids);
    if (this.members.size > CACHED_LISTS) this.members.delete(this.members.keys().next().value!);
    return ids;
  }
}

/** Sorted, distinct union of sorted id arrays. */
function union(parts: readonly Int32Array[]): Int32Array {
  if (parts.length === 1) return parts[0]!;
  const all = new Int32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) if (i === 0 || all[i] !== all[i - 1]) all[n++] = all[i]!;
  return all.slice(0, n);
}
