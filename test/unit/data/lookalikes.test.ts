import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchContext } from '../../../data/creators/search-context.js';
import { baseProfile, deltaProfile, lookalikeModel } from '../../../data/creators/search-index/lookalike-model.js';
import {
  compareProfiles,
  roundSimilarity,
  type LookalikeBasis,
} from '../../../data/creators/search-index/lookalike-search.js';
import { rankedLookalikes, searchLookalikes } from '../../../data/creators/search-index/lookalikes.js';
import { loadSearchDelta } from '../../../data/creators/search-index/search-delta.js';
import type { SearchIndex } from '../../../data/creators/search-index/search-index.js';
import { loadSearchIndex } from '../../../data/creators/search-index/search-index.loader.js';
import { createTestStore, setContentLists, type TestStore } from '../../helpers/store.js';

let t: TestStore;
let index: SearchIndex;
const BASES: readonly LookalikeBasis[] = ['content', 'audience', 'both'];

beforeAll(async () => {
  t = await createTestStore({ creators: 2000 });
  index = await loadSearchIndex(t.store);
}, 120_000);
afterAll(async () => {
  await t?.cleanup();
});

/** Every candidate compared one by one with the target: the answer without any shortcut. */
function exhaustive(idx: SearchIndex, targetId: number, basis: LookalikeBasis, limit: number) {
  const view = idx.lookalikeView();
  const model = lookalikeModel(view.data);
  const profileOf = (id: number) => {
    const row = view.delta.find((r) => r.creator_id === id);
    return row ? deltaProfile(model, view.data, row) : baseProfile(model, view.data, idx.basePosition(id));
  };
  const target = profileOf(targetId);
  const ids = [...[...view.data.ids].filter((id) => idx.basePosition(id) >= 0), ...view.delta.map((r) => r.creator_id)];
  return ids
    .filter((id) => id !== targetId)
    .map((id) => {
      const f = compareProfiles(model, target, profileOf(id));
      const x = basis === 'content' ? f.content : basis === 'audience' ? f.audience : (f.content + f.audience) / 2;
      return { creator_id: id, similarity: roundSimilarity(x) };
    })
    .filter((m) => m.similarity > 0)
    .sort((a, b) => b.similarity - a.similarity || a.creator_id - b.creator_id)
    .slice(0, limit);
}

function ranked(
  idx: SearchIndex,
  targetId: number,
  basis: LookalikeBasis,
  limit: number,
  after: readonly [number, number] | null = null,
) {
  const context = searchContext(Date.now());
  const found = rankedLookalikes(idx, { creatorId: targetId, basis, filters: {}, context, after, limit });
  if (!found) throw new Error(`creator ${targetId} is not in the index`);
  return found;
}

describe('lookalike ranking over the index', () => {
  it('answers what comparing every creator one by one answers, on every basis (the shortcuts lose nothing)', () => {
    const ids = index.lookalikeView().data.ids;
    for (let k = 0; k < 12; k++) {
      const targetId = ids[(k * 163) % ids.length]!;
      for (const basis of BASES)
        expect(ranked(index, targetId, basis, 30), `${targetId} ${basis}`).toEqual(
          exhaustive(index, targetId, basis, 30),
        );
    }
  });

  it('a page after a keyset is the next slice of the whole ranking', () => {
    const targetId = index.lookalikeView().data.ids[777]!;
    const whole = exhaustive(index, targetId, 'both', 60);
    const first = ranked(index, targetId, 'both', 25);
    const last = first.at(-1)!;
    expect([...first, ...ranked(index, targetId, 'both', 35, [last.similarity, last.creator_id])]).toEqual(whole);
  });

  it('a creator changed since the build is compared by its current content (a delta), with reasons naming it', async () => {
    const view = index.lookalikeView();
    const targetId = view.data.ids[100]!;
    const target = await t.store.one<{ hashtags: string[] }>(
      'SELECT hashtags FROM creator_content WHERE creator_id = ?',
      [targetId],
    );
    const copyId = view.data.ids[1500]!;
    // the copy takes the target's hashtags
    await setContentLists(t.store, copyId, { hashtags: '?::VARCHAR[]' }, [target!.hashtags]);
    const delta = await loadSearchDelta(t.store, index.baseFingerprints(), 100_000);
    const changed = index.withDelta(delta!);
    for (const basis of BASES)
      expect(ranked(changed, targetId, basis, 30)).toEqual(exhaustive(changed, targetId, basis, 30));
    const page = searchLookalikes(changed, {
      creatorId: targetId,
      basis: 'content',
      filters: {},
      context: searchContext(Date.now()),
      after: null,
      limit: 100,
    })!;
    const copy = page.creators.find(
      (c) => c.handle === changed.item(copyId)!.handle && c.platform === changed.item(copyId)!.platform,
    );
    expect(copy).toBeDefined();
    const reason = copy!.reasons.find((r) => r.kind === 'hashtags');
    expect(reason?.detail).toMatch(/^\d+ shared hashtags?: #/);
  });
});
