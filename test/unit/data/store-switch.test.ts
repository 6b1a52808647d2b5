import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../../data/store.js';

/** Two small DuckDB files standing in for two published snapshots. */
async function snapshotFile(dir: string, name: string, value: number): Promise<string> {
  const path = join(dir, name);
  const s = await Store.open(path);
  await s.run('CREATE TABLE marker (v INTEGER)');
  await s.run('INSERT INTO marker VALUES (?)', [value]);
  await s.run('CREATE TABLE big AS SELECT range AS i FROM range(3000000)');
  await s.close();
  return path;
}

describe('a read-only store switching to a newer snapshot', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cds-switch-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('finishes queries in flight on the old file, answers new ones from the new file, and fails none', async () => {
    const first = await snapshotFile(dir, 'one.duckdb', 1);
    const second = await snapshotFile(dir, 'two.duckdb', 2);
    const store = await Store.open(first, { readOnly: true, poolSize: 2 });
    try {
      const slow = store.one<{ n: number; v: number }>(
        'SELECT count(*) AS n, (SELECT v FROM marker) AS v FROM big a, range(3) b',
      );
      const streamed = (async () => {
        let rows = 0;
        for await (const chunk of store.stream<{ i: number }>('SELECT i FROM big')) rows += chunk.length;
        return rows;
      })();
      await store.switchTo(second);
      const after = await Promise.all(
        Array.from({ length: 8 }, () => store.one<{ v: number }>('SELECT v FROM marker')),
      );
      expect(after.map((r) => r?.v)).toEqual(Array(8).fill(2));
      expect(await slow).toEqual({ n: 9_000_000, v: 1 });
      expect(await streamed).toBe(3_000_000);
      expect(store.path).toBe(second);
    } finally {
      await store.close();
    }
  });

  it('keeps serving the old file when the new one cannot be opened', async () => {
    const first = await snapshotFile(dir, 'three.duckdb', 3);
    const store = await Store.open(first, { readOnly: true });
    try {
      await expect(store.switchTo(join(dir, 'missing.duckdb'))).rejects.toThrow();
      expect((await store.one<{ v: number }>('SELECT v FROM marker'))?.v).toBe(3);
    } finally {
      await store.close();
    }
  });

  it('refuses to switch a writable store', async () => {
    const store = await Store.open(join(dir, 'rw.duckdb'));
    try {
      await expect(store.switchTo(join(dir, 'one.duckdb'))).rejects.toThrow(/read-only/);
    } finally {
      await store.close();
    }
  });
});
