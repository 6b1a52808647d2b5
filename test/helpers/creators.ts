import type { Store } from '../../data/store.js';

/** A creator as tests name it: its id, and its handle on its platform. */
export type CreatorRef = {
  creator_id: number;
  platform: string;
  handle: string;
};

/** The creator at `offset` in creator_id order: a stable pick from a seeded store. */
export async function creatorAt(store: Store, offset: number): Promise<CreatorRef & { followers: number }> {
  const row = await store.one<CreatorRef & { followers: number }>(
    'SELECT creator_id, platform, handle, followers FROM creators ORDER BY creator_id LIMIT 1 OFFSET ?',
    [offset],
  );
  if (!row) throw new Error(`no creator at offset ${offset}`);
  return row;
}

/** The first creator, by creator_id, whose handle no other platform uses: found by handle alone, no `platform=`. */
export async function creatorWithUniqueHandle(store: Store): Promise<CreatorRef> {
  const row = await store.one<CreatorRef>(`SELECT creator_id, platform, handle FROM creators
    WHERE handle IN (SELECT handle FROM creators GROUP BY handle HAVING count(*) = 1) ORDER BY creator_id LIMIT 1`);
  if (!row) throw new Error('no creator with a handle of its own');
  return row;
}
