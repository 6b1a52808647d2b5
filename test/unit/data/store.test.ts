import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { checksumSql } from '../../../data/audience-overlap/follower-sketch.queries.js';
import { MIGRATIONS, runMigrations } from '../../../data/migrations/index.js';
import { Store, StoreCorruptError, wrap } from '../../../data/store.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cds-store-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('store', () => {
  it('applies every migration once and nothing on a second run', async () => {
    const store = await Store.open(join(tempDir(), 'cds.duckdb'));
    const versions = await store.all<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    expect(versions.map((v) => v.version)).toEqual(MIGRATIONS.map((m) => m.version));
    const again = await store.withConnection((c) => runMigrations(wrap(c)));
    expect(again).toEqual([]);
    await store.close();
  });

  it('keeps data across a close and reopen', async () => {
    const path = join(tempDir(), 'cds.duckdb');
    const first = await Store.open(path);
    await first.run("INSERT INTO accounts (account_id, name, plan) VALUES ('acct_x', 'x', 'entry')");
    await first.close();
    const second = await Store.open(path);
    expect(await second.one('SELECT name, plan FROM accounts')).toEqual({ name: 'x', plan: 'entry' });
    await second.close();
  });

  it('a store closed while a query runs answers the query, then closes (closed under it, the query never answered and the process never exited)', async () => {
    for (const readOnly of [false, true]) {
      const path = join(tempDir(), 'cds.duckdb');
      if (readOnly) await (await Store.open(path)).close();
      const store = await Store.open(path, { readOnly });
      // the connection is lent at once: close() below starts while the query runs
      const query = store.one<{ n: number }>('SELECT count(*) AS n FROM range(100000000) t(i) WHERE i % 7 = 3');
      await store.close();
      expect(await query).toEqual({ n: 14_285_714 });
      expect(store.isClosed).toBe(true);
      await expect(store.one('SELECT 1')).rejects.toThrow(/closed/);
    }
  }, 60_000);

  it('rolls a failed transaction back whole', async () => {
    const store = await Store.open(join(tempDir(), 'cds.duckdb'));
    await expect(
      store.transaction(async (tx) => {
        await tx.run("INSERT INTO accounts (account_id, name, plan) VALUES ('acct_a', 'a', 'entry')");
        await tx.run("INSERT INTO accounts (account_id, name, plan) VALUES ('acct_a', 'dup', 'entry')");
      }),
    ).rejects.toThrow();
    expect(await store.one<{ n: number }>('SELECT count(*) AS n FROM accounts')).toEqual({ n: 0 });
    await store.close();
  });

  it('refuses a file that is not a DuckDB database with a clear error', async () => {
    const path = join(tempDir(), 'cds.duckdb');
    writeFileSync(path, 'this is not a database'.repeat(500));
    await expect(Store.open(path)).rejects.toBeInstanceOf(StoreCorruptError);
  });

  it('keeps timestamps in UTC whatever the machine time zone', async () => {
    const store = await Store.open(':memory:');
    const rows = await Promise.all([1, 2, 3, 4].map(() => store.one("SELECT current_setting('TimeZone') AS tz")));
    expect(rows.every((r) => r?.['tz'] === 'UTC')).toBe(true);
    await store.close();
  });

  it('binds arrays as lists and returns BIGINTs as numbers', async () => {
    const store = await Store.open(':memory:');
    const row = await store.one('SELECT 2::BIGINT * ? AS n, ?::VARCHAR[] AS l', [21, ['a', 'b']]);
    expect(row).toEqual({ n: 42, l: ['a', 'b'] });
    await store.close();
  });

  it('binds whole numbers past 2^53 or int64 as DOUBLE, so a validated value never fails as an out-of-range BIGINT', async () => {
    const store = await Store.open(':memory:');
    const row = await store.one(
      'SELECT 5::BIGINT < ? AS past_int64, 5::BIGINT < ? AS past_safe, typeof(?) AS safe_type, -1e20 < ? AS negative',
      [1e20, 2 ** 53 + 2, 2 ** 53 - 1, -1e19],
    );
    expect(row).toEqual({ past_int64: true, past_safe: true, safe_type: 'BIGINT', negative: true });
    await store.close();
  });
});

describe('migration 102', () => {
  it('moves the content lists of a store made by the previous release into creator_content, with their fingerprint', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const store = wrap(await db.connect());
    try {
      await runMigrations(
        store,
        MIGRATIONS.filter((m) => m.version < 102),
      );
      await store.run(`INSERT INTO creators (creator_id, platform, handle, niche, followers, verified, updated_at, hashtags, mentions, brands,
          caption_words, linked_platforms)
        VALUES (1, 'tiktok', '@full', 'fitness', 10, false, TIMESTAMP '2026-11-01', ['legday'], ['gymshark'], ['@gymshark'], ['leg', 'day'], ['youtube']),
          (2, 'tiktok', '@empty', 'fitness', 10, false, TIMESTAMP '2026-11-01', [], [], [], [], []),
          (3, 'tiktok', '@underived', 'fitness', 10, false, TIMESTAMP '2026-11-01', NULL, NULL, NULL, NULL, NULL),
          (4, 'tiktok', '@linked', 'fitness', 10, false, TIMESTAMP '2026-11-01', NULL, NULL, NULL, NULL, ['x'])`);
      expect(await runMigrations(store)).toContain(102);
      const rows = await store.all(`SELECT creator_id, hashtags, mentions, brands, caption_words, linked_platforms,
          fingerprint = (hash(hashtags, mentions, brands, caption_words, linked_platforms) % 2147483647)::INTEGER AS fingerprinted
        FROM creator_content ORDER BY creator_id`);
      expect(rows).toEqual([
        {
          creator_id: 1,
          hashtags: ['legday'],
          mentions: ['gymshark'],
          brands: ['@gymshark'],
          caption_words: ['leg', 'day'],
          linked_platforms: ['youtube'],
          fingerprinted: true,
        },
        {
          creator_id: 4,
          hashtags: [],
          mentions: [],
          brands: [],
          caption_words: [],
          linked_platforms: ['x'],
          fingerprinted: true,
        },
      ]);
      const columns = (
        await store.all<{ column_name: string }>(
          "SELECT column_name FROM duckdb_columns() WHERE table_name = 'creators'",
        )
      ).map((c) => c.column_name);
      expect(
        columns.filter((c) => ['hashtags', 'mentions', 'brands', 'caption_words', 'linked_platforms'].includes(c)),
      ).toEqual([]);
      expect(await store.all("SELECT index_name FROM duckdb_indexes() WHERE table_name = 'creators'")).toEqual([
        { index_name: 'creators_handle_idx' },
      ]);
      expect(await store.one("SELECT creator_id FROM creators WHERE handle = '@linked'")).toEqual({ creator_id: 4 });
    } finally {
      db.closeSync();
    }
  });
});

describe('migrations 111 and 113', () => {
  it('give the sketches of a store made before them their checksums, and the index back in a transaction of its own', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const store = wrap(await db.connect());
    try {
      await runMigrations(
        store,
        MIGRATIONS.filter((m) => m.version < 111),
      );
      await store.run(`INSERT INTO follower_sketches (creator_id, sample_size, hashes, updated_at)
        VALUES (7, 3, [5, 9, 12], TIMESTAMP '2026-11-01'), (8, 1, [4], TIMESTAMP '2026-11-01')`);
      expect(await runMigrations(store)).toEqual(MIGRATIONS.filter((m) => m.version >= 111).map((m) => m.version));
      expect(
        await store.all(
          `SELECT creator_id, checksum = ${checksumSql('hashes')} AS checked FROM follower_sketches ORDER BY creator_id`,
        ),
      ).toEqual([
        { creator_id: 7, checked: true },
        { creator_id: 8, checked: true },
      ]);
      expect(await store.all("SELECT index_name FROM duckdb_indexes() WHERE table_name = 'follower_sketches'")).toEqual(
        [{ index_name: 'follower_sketches_creator' }],
      );
      // the statements of 111 no longer make the index again: 113 does, alone
      const byVersion = new Map(MIGRATIONS.map((m) => [m.version, m.statements]));
      expect(byVersion.get(111)?.some((s) => /CREATE INDEX/i.test(s))).toBe(false);
      expect(byVersion.get(113)).toEqual([
        'CREATE INDEX IF NOT EXISTS follower_sketches_creator ON follower_sketches (creator_id)',
      ]);
    } finally {
      db.closeSync();
    }
  });
});
