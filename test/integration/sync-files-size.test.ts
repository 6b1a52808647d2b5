import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Manifest } from '../../connectors/files/manifest.js';
import { runSync } from '../../connectors/warehouse/runner.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let ts: TestStore;
beforeAll(async () => {
  ts = await createTestStore();
  // a year of daily history for 2,200 creators (803,000 rows, past DuckDB's 524,288-row partition flush), stored creator by creator
  await ts.store.run(`INSERT INTO follower_history (creator_id, date, followers, "following")
    SELECT c::INTEGER, DATE '2026-11-20' - d::INTEGER, (1000 + c + d)::INTEGER, NULL FROM range(2200) a(c), range(365) b(d) ORDER BY c, d`);
});
afterAll(async () => {
  await ts?.cleanup();
});

it('a first sync of a year of daily history writes one file per day, not dozens of small ones', async () => {
  const path = join(ts.dir, 'lake');
  const result = await runSync(
    ts.store,
    'lake',
    { type: 'files', path, format: 'parquet', tables: ['follower_history'] },
    { workDir: join(ts.dir, 'work') },
  );
  expect(result.error).toBeNull();
  const manifest = JSON.parse(readFileSync(join(path, '_manifest.json'), 'utf8')) as Manifest;
  const files = manifest.tables['follower_history']?.files ?? [];
  expect(new Set(files.map((f) => f.dt)).size).toBe(365);
  expect(files).toHaveLength(365);
  expect(files.reduce((n, f) => n + f.rows, 0)).toBe(2200 * 365);
});
