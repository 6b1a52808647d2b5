import { toCreatorItem, type CreatorItem } from '../creators/creator-item.js';
import type { MemberRow } from './list-member.queries.js';
import type { ListRow } from './list.queries.js';

/** A list as the API shows it (README.md, "The API"). */
export interface CreatorList {
  id: string;
  name: string;
  description: string | null;
  creators_count: number;
  created_at: string;
  updated_at: string;
}

/** A list member: the Creator item plus when it was added. */
export interface ListMember extends CreatorItem {
  added_at: string;
}

/** A `lists` row (with its member count) → the API's list. */
export function toCreatorList(row: ListRow): CreatorList {
  return {
    id: row.list_id,
    name: row.name,
    description: row.description ?? null,
    creators_count: Number(row.creators_count),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A member row → the Creator item plus `added_at`. */
export function toListMember(row: MemberRow): ListMember {
  return { ...toCreatorItem(row), added_at: row.added_at };
}
