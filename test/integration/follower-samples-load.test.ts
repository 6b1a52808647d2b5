import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selectSketchHashes, selectSketchKeys } from '../../data/audience-overlap/follower-sketch.queries.js';
import { readSketches } from '../../data/audience-overlap/overlap.service.js';
import { sketchSlotsOf, slotOffset, slotsPathOf } from '../../data/audience-overlap/sketch-slots.js';
import type { PipelineSource, RunRecord } from '../../pipelines/engine/pipeline.js';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { pipelineForEntity } from '../../pipelines/registry.js';
import { filesSource } from '../../pipelines/sources/files.source.js';
import { writeCsv } from '../fixtures/pipelines/files.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestStore;
beforeAll(async () => {
  t = await createTestStore({ creators: 200 });
});
afterAll(async () => {
  await t.cleanup();
});

interface Creator extends Record<string, unknown> {
  creator_id: number;
  platform: string;
  handle: string;
}

async function creator(offset: number): Promise<Creator> {
  const row = await t.store.one<Creator>(
    'SELECT creator_id, platform, handle FROM creators ORDER BY creator_id LIMIT 1 OFFSET ?',
    [offset],
  );
  if (!row) throw new Error('no creator');
  return row;
}

async function ingest(name: string, rows: Array<Record<string, string>>): Promise<RunRecord> {
  const file = writeCsv(t.dir, name, ['platform', 'handle', 'follower_id'], rows);
  const outcome = await runPipeline({ store: t.store, config: t.config }, pipelineForEntity('follower_samples'), {
    source: filesSource([{ entity: 'follower_samples', file, format: 'csv' }]),
  });
  const run = outcome.runs[0];
  if (!run) throw new Error('no run');
  return run;
}

const rowsOf = (c: Creator, ids: readonly string[]): Array<Record<string, string>> =>
  ids.map((follower_id) => ({ platform: c.platform.toUpperCase(), handle: c.handle.slice(1), follower_id }));

async function sample(c: Creator): Promise<string[]> {
  const rows = await t.store.all<{ follower_id: string }>(
    'SELECT follower_id FROM follower_samples WHERE creator_id = ? ORDER BY follower_id',
    [c.creator_id],
  );
  return rows.map((r) => r.follower_id);
}

async function sketch(c: Creator): Promise<{ sample_size: number; hashes: number[] } | undefined> {
  return t.store.one('SELECT sample_size, hashes FROM follower_sketches WHERE creator_id = ?', [c.creator_id]);
}

const ids = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `u${from + i}`);

describe('the follower_samples pipeline', () => {
  it('replaces the whole sample of each creator a file names and rewrites its sketch; others keep theirs', async () => {
    const [a, b, other] = [await creator(1), await creator(2), await creator(3)];
    const otherBefore = await sketch(other);
    const first = await ingest('follower_samples-1.csv', [...rowsOf(a, ids(0, 3000)), ...rowsOf(b, ids(100, 50))]);
    expect(first).toMatchObject({ status: 'succeeded', rows_loaded: 3050, rows_rejected: 0, rows_changed: 3050 });
    expect((await sample(b)).length).toBe(50);
    const sa = await sketch(a);
    expect(sa?.sample_size).toBe(3000);
    expect(sa?.hashes).toHaveLength(2048);
    expect([...(sa?.hashes ?? [])]).toEqual([...(sa?.hashes ?? [])].sort((x, y) => x - y));
    expect((await sketch(b))?.hashes).toHaveLength(50);

    const second = await ingest('follower_samples-2.csv', rowsOf(b, ids(1000, 20)));
    expect(second).toMatchObject({ rows_loaded: 20, rows_changed: 20 });
    expect(await sample(b)).toEqual(ids(1000, 20).sort());
    expect((await sketch(b))?.sample_size).toBe(20);
    expect((await sketch(a))?.sample_size).toBe(3000);
    expect(await sketch(other)).toEqual(otherBefore);
  });

  it('changes nothing when the same file is loaded again', async () => {
    const c = await creator(4);
    const rows = rowsOf(c, ids(5000, 100));
    await ingest('follower_samples-same.csv', rows);
    const before = await t.store.one<{ updated_at: unknown }>(
      'SELECT updated_at FROM follower_sketches WHERE creator_id = ?',
      [c.creator_id],
    );
    const again = await ingest('follower_samples-same-again.csv', [...rows].reverse());
    expect(again).toMatchObject({ rows_loaded: 100, rows_changed: 0 });
    expect(await t.store.one('SELECT updated_at FROM follower_sketches WHERE creator_id = ?', [c.creator_id])).toEqual(
      before,
    );
  });

  it('quarantines unknown creators, bad platforms, empty and over-long ids and a follower listed twice', async () => {
    const c = await creator(5);
    const run = await ingest('follower_samples-bad.csv', [
      ...rowsOf(c, ['ok1', 'ok2']),
      { platform: c.platform, handle: '@nobody_at_all_here', follower_id: 'x1' },
      { platform: 'myspace', handle: c.handle, follower_id: 'x2' },
      { platform: c.platform, handle: c.handle, follower_id: '' },
      { platform: c.platform, handle: c.handle, follower_id: 'y'.repeat(201) },
      { platform: c.platform, handle: c.handle, follower_id: 'ok1' },
    ]);
    expect(run).toMatchObject({ rows_loaded: 2, rows_rejected: 5 });
    const reasons = await t.store.all<{ line: number; column_name: string | null; reason: string }>(
      'SELECT line, column_name, reason FROM quarantine WHERE run_id = ? ORDER BY line',
      [run.run_id],
    );
    expect(reasons).toEqual([
      { line: 2, column_name: null, reason: 'duplicate key in this file; line 8 is kept' },
      { line: 4, column_name: 'handle', reason: `unknown creator ${c.platform} @nobody_at_all_here` },
      { line: 5, column_name: 'platform', reason: 'not a known platform' },
      { line: 6, column_name: 'follower_id', reason: 'is required' },
      { line: 7, column_name: 'follower_id', reason: 'longer than 200 characters' },
    ]);
    expect(await sample(c)).toEqual(['ok1', 'ok2']);
  });
});

/** The sketches of these creators that their slots answer for (the ones an overlap request takes from the slots). */
async function fromSlots(cs: readonly Creator[]): Promise<Map<number, { sample_size: number; hashes: number[] }>> {
  const slots = await sketchSlotsOf(t.store);
  if (!slots) throw new Error('no sketch slots beside the test store');
  return slots.read(
    await selectSketchKeys(
      t.store,
      cs.map((c) => c.creator_id),
    ),
  );
}

/** The raw bytes of a creator's slot. */
function slotBytes(c: Creator): Buffer {
  const size = slotOffset(1) - slotOffset(0);
  const bytes = Buffer.alloc(size);
  const fd = openSync(slotsPathOf(t.store.path), 'r');
  try {
    readSync(fd, bytes, 0, size, slotOffset(c.creator_id));
  } finally {
    closeSync(fd);
  }
  return bytes;
}

const sketchesOf = async (cs: readonly Creator[]) =>
  new Map(
    [
      ...(await selectSketchHashes(
        t.store,
        cs.map((c) => c.creator_id),
      )),
    ].map(([id, s]) => [id, { sample_size: s.sample_size, hashes: s.hashes }]),
  );

describe('the sketch slots after a follower_samples load', () => {
  it('hold the sketches the load rewrote once it commits, so the first overlap read takes them from the slots', async () => {
    const [a, b, untouched] = [await creator(20), await creator(21), await creator(22)];
    await sketchSlotsOf(t.store);
    const run = await ingest('follower_samples-slots.csv', [
      ...rowsOf(a, ids(20_000, 2500)),
      ...rowsOf(b, ids(30_000, 40)),
    ]);
    expect(run).toMatchObject({ status: 'succeeded', rows_changed: 2540 });
    // a slot answers only for the sketch the store holds now, and these were written by this load
    expect(await fromSlots([a, b])).toEqual(await sketchesOf([a, b]));
    expect((await fromSlots([untouched])).size).toBe(0);
    expect(await readSketches(t.store, [a.creator_id, b.creator_id])).toEqual(await sketchesOf([a, b]));
  });

  it('are not written for the creators of a load that fails and rolls back', async () => {
    const c = await creator(23);
    await sketchSlotsOf(t.store);
    const before = slotBytes(c);
    const sketchBefore = await sketch(c);
    const good = writeCsv(
      t.dir,
      'follower_samples-rollback.csv',
      ['platform', 'handle', 'follower_id'],
      rowsOf(c, ids(40_000, 300)),
    );
    // two files in one transaction: the second cannot be read after the first has been merged
    const source = oneUnit([good, join(t.dir, 'follower_samples-missing.csv')]);
    const outcome = await runPipeline({ store: t.store, config: t.config }, pipelineForEntity('follower_samples'), {
      source,
    });
    expect(outcome.runs[0]).toMatchObject({ status: 'failed', rows_loaded: 0 });
    expect(await sketch(c)).toEqual(sketchBefore);
    expect(slotBytes(c).equals(before)).toBe(true);
  });

  it('leave the load committed when they cannot be written, and the store answers when they cannot be read', async () => {
    const c = await creator(24);
    const slots = await sketchSlotsOf(t.store);
    await slots?.close(); // every read and write of the slots file fails from here on
    const run = await ingest('follower_samples-unwritable.csv', rowsOf(c, ids(50_000, 120)));
    expect(run).toMatchObject({ status: 'succeeded', rows_changed: 120 });
    expect((await sketch(c))?.sample_size).toBe(120);
    expect((await readSketches(t.store, [c.creator_id])).get(c.creator_id)?.sample_size).toBe(120);
  });
});

/** One unit of several follower_samples files, loaded in one transaction (as a demo tick's files are). */
function oneUnit(files: readonly string[]): PipelineSource {
  let taken = false;
  return {
    kind: 'files',
    next: async () => {
      if (taken) return null;
      taken = true;
      return {
        source: 'files:rollback',
        batches: files.map((file) => ({ entity: 'follower_samples' as const, file, format: 'csv' as const })),
        dedupeByChecksum: false,
      };
    },
  };
}
