import { afterEach, describe, expect, it } from 'vitest';
import { ensureDemoAccount } from '../../../data/seed/demo-account.js';
import { seedDemoData } from '../../../data/seed/demo-generator.js';
import {
  assertSeedFits,
  markSeedRunning,
  SEED_BYTES_PER_CREATOR,
  SeedDiskSpaceError,
  SEEDED_TABLES,
  seedStatus,
} from '../../../data/seed/seed-state.js';
import { Store } from '../../../data/store.js';
import { createTestStore, TEST_AS_OF, type TestStore } from '../../helpers/store.js';

let t: TestStore | undefined;
afterEach(async () => {
  await t?.cleanup();
  t = undefined;
});

async function rowCounts(ts: TestStore): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of SEEDED_TABLES)
    counts[table] = (await ts.store.one<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))?.n ?? -1;
  return counts;
}

/** The demo seed of `creators` creators as a clean start runs it (seed 1, the tests' as-of date). */
function seedDemo(ts: TestStore, demoAccountId: string, creators: number): ReturnType<typeof seedDemoData> {
  return seedDemoData(ts.store, { creators, seed: 1, asOf: TEST_AS_OF, demoAccountId });
}

const allEmpty = Object.fromEntries(SEEDED_TABLES.map((table) => [table, 0]));

describe('seed: all or nothing although it commits step by step', () => {
  it('a seed failing after history and posts are committed leaves every seeded table empty, indexes intact, and can be re-run', async () => {
    t = await createTestStore();
    const ts = t;
    const account = await ensureDemoAccount(ts.store);
    const seen: string[] = [];
    await expect(
      seedDemoData(ts.store, {
        creators: 500,
        seed: 1,
        asOf: TEST_AS_OF,
        demoAccountId: account.account_id,
        onProgress: (step) => {
          seen.push(step);
          if (step === 'audience') throw new Error('disk full (simulated)');
        },
      }),
    ).rejects.toThrow('disk full (simulated)');
    expect(seen).toEqual(['reference data', 'creators', 'follower history', 'posts', 'audience']);
    expect(await rowCounts(ts)).toEqual(allEmpty);
    expect(await seedStatus(ts.store)).toBe('empty');
    const indexes = await ts.store.all<{ index_name: string }>(
      `SELECT index_name FROM duckdb_indexes() WHERE table_name = 'creators'`,
    );
    expect(indexes.map((i) => i.index_name)).toContain('creators_handle_idx');
    // the accounts and keys around the seed are untouched
    expect((await ts.store.one<{ n: number }>('SELECT count(*) AS n FROM accounts'))?.n).toBe(1);

    const result = await seedDemo(ts, account.account_id, 500);
    expect(result.creators).toBe(500);
    // 365 days per creator, but a few weeks for the short-history pattern
    const days = await ts.store.one<{
      n: number;
    }>(`SELECT sum(CASE WHEN pattern = 'short_history' THEN 0 ELSE 365 END)::INTEGER AS n
      FROM creator_labels`);
    expect(result.historyRows).toBeGreaterThan(days!.n);
    expect(result.historyRows).toBeLessThan(500 * 365);
    expect(await seedStatus(ts.store)).toBe('done');
    // the re-created primary key still holds
    await expect(
      ts.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, followers, updated_at)
      VALUES (1, 'x', '@dup', 'gaming', 10, now()::TIMESTAMP)`),
    ).rejects.toThrow(/constraint|duplicate/i);
  });

  it('a seed killed part-way (marked running, rows committed) is discarded by the next seed', async () => {
    t = await createTestStore();
    const ts = t;
    const account = await ensureDemoAccount(ts.store);
    await markSeedRunning(ts.store, 300, 1);
    await ts.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, followers, updated_at)
      VALUES (1, 'x', '@left_behind', 'gaming', 10, now()::TIMESTAMP)`);
    await ts.store.run(`INSERT INTO follower_history VALUES (1, DATE '2026-01-01', 10, 1)`);
    expect(await seedStatus(ts.store)).toBe('interrupted');

    const result = await seedDemo(ts, account.account_id, 300);
    expect(result.creators).toBe(300);
    expect(
      (await ts.store.one<{ n: number }>(`SELECT count(*) AS n FROM creators WHERE handle = '@left_behind'`))?.n,
    ).toBe(0);
    expect(await seedStatus(ts.store)).toBe('done');
  });

  it('opening the store discards a seed that never finished, before anything reads it', async () => {
    t = await createTestStore();
    const ts = t;
    await markSeedRunning(ts.store, 300, 1);
    await ts.store.run(`INSERT INTO creators (creator_id, platform, handle, niche, followers, updated_at)
      VALUES (1, 'x', '@half_seeded', 'gaming', 10, now()::TIMESTAMP)`);
    await ts.store.close();
    ts.store = await Store.open(ts.config.dbPath);
    expect((await ts.store.one<{ n: number }>('SELECT count(*) AS n FROM creators'))?.n).toBe(0);
    expect(await seedStatus(ts.store)).toBe('empty');
  });

  it('refuses a seed the disk cannot hold before writing anything, naming what it needs', () => {
    const creators = 1_000_000;
    expect(() => assertSeedFits('/data/cds.duckdb', creators, () => 150e6)).toThrow(SeedDiskSpaceError);
    expect(() => assertSeedFits('/data/cds.duckdb', creators, () => 150e6)).toThrow(
      'not enough disk space for 1,000,000 creators: needs about 3.2 GB free in /data, 150 MB free; nothing was written',
    );
    expect(() => assertSeedFits('/data/cds.duckdb', creators, () => creators * SEED_BYTES_PER_CREATOR)).not.toThrow();
    expect(() => assertSeedFits(':memory:', creators, () => 0)).not.toThrow();
  });
});
