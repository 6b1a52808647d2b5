import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchContext } from '../../../data/creators/search-context.js';
import {
  type LookalikeModel,
  lookalikeModel,
  prepareLookalikeModel,
} from '../../../data/creators/search-index/lookalike-model.js';
import type { LookalikeBasis } from '../../../data/creators/search-index/lookalike-search.js';
import { searchLookalikes } from '../../../data/creators/search-index/lookalikes.js';
import type { SearchIndex } from '../../../data/creators/search-index/search-index.js';
import { loadSearchIndex } from '../../../data/creators/search-index/search-index.loader.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

let t: TestStore;
/** Two indexes of the same data, neither with its vectors yet: one built in slices, one at once. */
let sliced: SearchIndex;
let whole: SearchIndex;

beforeAll(async () => {
  t = await createTestStore({ creators: 1500 });
  sliced = await loadSearchIndex(t.store, undefined, { lookalikes: false });
  whole = await loadSearchIndex(t.store, undefined, { lookalikes: false });
}, 120_000);
afterAll(async () => {
  await t?.cleanup();
});

const page = (index: SearchIndex, creatorId: number, basis: LookalikeBasis) =>
  searchLookalikes(index, {
    creatorId,
    basis,
    filters: {},
    context: searchContext(Date.parse('2026-11-27T00:00:00Z')),
    after: null,
    limit: 40,
  });

/** A model's vectors, without its postings (the index's own) and the requests' scratch arrays. */
function vectors(model: LookalikeModel) {
  const { postings: _p, acc: _a, query: _q, touched: _t, ...content } = model.content;
  const { query: _aq, countryShare: _c, interestShare: _i, ...audience } = model.audience;
  return { size: model.size, content, audience };
}

describe('lookalike vectors built in slices of the event loop', () => {
  it('yield to the event loop, and a request arriving during the build waits for it and answers as the whole build does', async () => {
    const data = sliced.lookalikeView().data;
    // the smallest slices: every step of the build in a turn of its own
    const building = prepareLookalikeModel(data, 0);
    let built = false;
    void building.then(() => {
      built = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(built).toBe(false);
    // a request meanwhile joins the build in progress instead of starting another
    const request = prepareLookalikeModel(data, 0);
    expect(request).toBe(building);
    const model = await request;
    expect(model).toBe(await building);
    expect(lookalikeModel(data)).toBe(model);
    const ids = data.ids;
    for (let k = 0; k < 6; k++) {
      const creatorId = ids[(k * 211) % ids.length]!;
      for (const basis of ['content', 'audience', 'both'] as const)
        expect(page(sliced, creatorId, basis), `${creatorId} ${basis}`).toEqual(page(whole, creatorId, basis));
    }
  });

  it('are the vectors the whole build makes, array for array', async () => {
    const a = await prepareLookalikeModel(sliced.lookalikeView().data, 0);
    const b = lookalikeModel(whole.lookalikeView().data);
    expect(vectors(a)).toEqual(vectors(b));
  });

  it('a caller that cannot wait finishes the build in progress at once, not a second one', async () => {
    const other = await loadSearchIndex(t.store, undefined, { lookalikes: false });
    const data = other.lookalikeView().data;
    const building = prepareLookalikeModel(data, 0);
    const now = lookalikeModel(data);
    expect(await building).toBe(now);
    expect(vectors(now)).toEqual(vectors(lookalikeModel(whole.lookalikeView().data)));
  });
});
