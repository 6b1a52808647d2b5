import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../pipelines/engine/pipeline.js';
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
