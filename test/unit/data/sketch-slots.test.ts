import { openSync, writeSync, closeSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checksumSql,
  selectSketchHashes,
  selectSketchKeys,
} from '../../../data/audience-overlap/follower-sketch.queries.js';
import { readSketches } from '../../../data/audience-overlap/overlap.service.js';
import {
  sketchSlotsOf,
  slotOffset,
  slotsPathOf,
  writeSketchSlots,
} from '../../../data/audience-overlap/sketch-slots.js';
import { createTestStore, type TestStore } from '../../helpers/store.js';

let t: TestStore;
let ids: number[];
beforeAll(async () => {
  t = await createTestStore({ creators: 60 });
  ids = (
    await t.store.all<{ creator_id: number }>('SELECT creator_id FROM follower_sketches ORDER BY creator_id LIMIT 10')
  ).map((r) => r.creator_id);
});
afterAll(async () => {
  await t.cleanup();
});

const withoutChecksums = (m: Map<number, { sample_size: number; hashes: number[] }>) =>
  new Map([...m].map(([id, s]) => [id, { sample_size: s.sample_size, hashes: s.hashes }]));

describe('the sketch slots beside the store', () => {
  it('answer every sketch as the store holds it, from the store the first time and from the slots after', async () => {
    const stored = withoutChecksums(await selectSketchHashes(t.store, ids));
    expect(stored.size).toBe(10);
    expect(withoutChecksums(await readSketches(t.store, ids))).toEqual(stored);
    const slots = await sketchSlotsOf(t.store);
    const fromSlots = await slots!.read(await selectSketchKeys(t.store, ids));
    expect(fromSlots).toEqual(stored);
    expect(withoutChecksums(await readSketches(t.store, ids))).toEqual(stored);
  });

  it('are not used for a sketch the store has rewritten since, which is read from the store and written back', async () => {
    const id = ids[0]!;
    await readSketches(t.store, [id]);
    await t.store.run(
      `UPDATE follower_sketches SET hashes = list_slice(hashes, 2, len(hashes)), checksum = ${checksumSql('list_slice(hashes, 2, len(hashes))')} WHERE creator_id = ?`,
      [id],
    );
    const stored = await selectSketchHashes(t.store, [id]);
    expect((await readSketches(t.store, [id])).get(id)?.hashes).toEqual(stored.get(id)?.hashes);
    const slots = await sketchSlotsOf(t.store);
    expect((await slots!.read(await selectSketchKeys(t.store, [id]))).get(id)?.hashes).toEqual(stored.get(id)?.hashes);
  });

  it('refuse a slot whose bytes were damaged, and the store answers', async () => {
    const id = ids[1]!;
    await readSketches(t.store, [id]);
    const fd = openSync(slotsPathOf(t.store.path), 'r+');
    writeSync(fd, new Uint8Array([0xff, 0xff, 0xff]), 0, 3, slotOffset(id) + 24 + 8);
    closeSync(fd);
    const slots = await sketchSlotsOf(t.store);
    expect((await slots!.read(await selectSketchKeys(t.store, [id]))).has(id)).toBe(false);
    const stored = await selectSketchHashes(t.store, [id]);
    expect((await readSketches(t.store, [id])).get(id)?.hashes).toEqual(stored.get(id)?.hashes);
  });

  it('are written from the store for many creators at once (a load after its commit), those without a sketch left out', async () => {
    const some = ids.slice(2);
    await t.store.run(
      `UPDATE follower_sketches SET hashes = list_slice(hashes, 2, len(hashes)), checksum = ${checksumSql('list_slice(hashes, 2, len(hashes))')} WHERE creator_id IN (${some.map(() => '?').join(', ')})`,
      some,
    );
    const slots = await sketchSlotsOf(t.store);
    expect((await slots!.read(await selectSketchKeys(t.store, some))).size).toBe(0);
    const unknown = Array.from({ length: 300 }, (_, i) => 5_000_000 + i);
    expect(await writeSketchSlots(t.store, [...some, ...unknown])).toBe(some.length);
    expect(await slots!.read(await selectSketchKeys(t.store, some))).toEqual(
      withoutChecksums(await selectSketchHashes(t.store, some)),
    );
  });
});
