import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findByHandle } from '../../../data/creators/creator-profile.queries.js';
import { loadSearchDelta } from '../../../data/creators/search-index/search-delta.js';
import type { SearchIndex } from '../../../data/creators/search-index/search-index.js';
import { loadSearchIndex } from '../../../data/creators/search-index/search-index.loader.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

let t: TestStore;
let index: SearchIndex;

beforeAll(async () => {
  t = await createTestStore({ creators: 2000 });
  index = await loadSearchIndex(t.store);
}, 120_000);
afterAll(async () => {
  await t?.cleanup();
});

/** What the store's own lookup answers for every handle asked (creator_id and platform, by platform). */
async function fromStore(handles: readonly string[]) {
  return Promise.all(handles.map((h) => findByHandle(t.store, h, null)));
}

describe('handles looked up in the search index', () => {
  it('names the same creators as the store for every handle, and none for a handle no creator has', async () => {
    const rows = await t.store.all<{ handle: string }>('SELECT DISTINCT handle FROM creators ORDER BY handle');
    const handles = [...rows.map((r) => r.handle), '@nobody.here', '@'];
    expect(handles.map((h) => index.handleMatches(h))).toEqual(await fromStore(handles));
  });

  it('after a change, answers from the changed rows: a handle now on two platforms names both, by platform', async () => {
    const [a, b] = await t.store.all<{ creator_id: number; handle: string; platform: string }>(
      `SELECT creator_id, handle, platform FROM creators WHERE platform IN ('instagram', 'youtube')
      QUALIFY row_number() OVER (PARTITION BY platform ORDER BY creator_id) = 1 ORDER BY platform DESC`,
    );
    // the youtube creator takes the instagram creator's handle, and its own handle is left unused
    await t.store.run('UPDATE creators SET handle = ? WHERE creator_id = ?', [b!.handle, a!.creator_id]);
    const changed = index.withDelta((await loadSearchDelta(t.store, index.baseFingerprints(), 100_000))!);
    const handles = [a!.handle, b!.handle];
    const answers = handles.map((h) => changed.handleMatches(h));
    expect(answers).toEqual(await fromStore(handles));
    expect(answers[0]).toEqual([]);
    expect(answers[1]!.map((m) => m.platform)).toEqual(['instagram', 'youtube']);
  });
});
