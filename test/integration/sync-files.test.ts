import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileFormat } from '../../connectors/files/config.js';
import type { Manifest } from '../../connectors/files/manifest.js';
import { runSync, type SyncOptions } from '../../connectors/warehouse/runner.js';
import { createSyncWorkers } from '../../connectors/warehouse/scheduler.js';
import {
  sourceRelation,
  SYNC_TABLE_NAMES,
  SYNC_TABLES,
  type SyncTableName,
} from '../../connectors/warehouse/tables.js';
import { sqlString } from '../../data/sql.js';
import { testConfig } from '../../config/config.js';
import { createLogger } from '../../config/logger.js';
import { quoteIdent } from '../../data/sql.js';
import { sha256File } from '../../pipelines/engine/checksum.js';
import { runOp } from '../../server/admin/admin-channel.js';
import type { ProgressUpdate } from '../../server/admin/admin-op.js';
import { eventually } from '../helpers/eventually.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

interface ParquetReader {
  getCursor(): { next(): Promise<Record<string, unknown> | null> };
  close(): Promise<void>;
}
const require = createRequire(import.meta.url);
// parquetjs-lite ships no types; the little used here is typed above.
const parquet = require('parquetjs-lite') as { ParquetReader: { openFile(path: string): Promise<ParquetReader> } };
// parquetjs-lite hands dictionary-encoded INT64 values over as strings, which its own
// TIMESTAMP_MICROS conversion cannot divide; convert them the way it means to.
const parquetTypes = require('parquetjs-lite/lib/types.js') as {
  PARQUET_LOGICAL_TYPES: Record<string, { fromPrimitive?: (v: unknown) => unknown }>;
};
const micros = parquetTypes.PARQUET_LOGICAL_TYPES['TIMESTAMP_MICROS'];
if (micros) micros.fromPrimitive = (v) => new Date(Number(BigInt(v as string) / 1000n));

let ts: TestStore;

beforeAll(async () => {
  ts = await createTestStore({ creators: 80 });
});

afterAll(async () => {
  await ts?.cleanup();
});

const options = (extra: Partial<SyncOptions> = {}): SyncOptions => ({ workDir: join(ts.dir, 'sync-tmp'), ...extra });
const lake = (name: string): string => join(ts.dir, name);
const files = (name: string, format: FileFormat, tables?: SyncTableName[]) => ({
  type: 'files' as const,
  path: lake(name),
  format,
  ...(tables ? { tables } : {}),
});
const manifestOf = (name: string): Manifest =>
  JSON.parse(readFileSync(join(lake(name), '_manifest.json'), 'utf8')) as Manifest;

const READERS: Readonly<Record<FileFormat, (glob: string) => string>> = {
  parquet: (g) => `read_parquet(${g}, hive_partitioning = true)`,
  csv: (g) => `read_csv(${g}, hive_partitioning = true, header = true)`,
  ndjson: (g) => `read_json(${g}, hive_partitioning = true, format = 'newline_delimited')`,
};

/** Rows as JSON text, keyed and ordered the same way, from the store or from the files (DuckDB as the loader). */
async function rows(
  table: SyncTableName,
  from: { lake: string; format: FileFormat } | null,
  columns = '*',
): Promise<unknown[]> {
  const spec = SYNC_TABLES[table];
  const exclude = from ? ['dt'] : spec.exclude;
  const source = from
    ? READERS[from.format](sqlString(join(lake(from.lake), table, '*', `*.${from.format}`)))
    : sourceRelation(spec);
  const select =
    columns === '*' ? `*${exclude.length > 0 ? ` EXCLUDE (${exclude.map(quoteIdent).join(', ')})` : ''}` : columns;
  const order = spec.key.map((k) => `t.${quoteIdent(k)}`).join(', ');
  const out = await ts.store.all<{ j: string }>(
    `SELECT CAST(to_json(t) AS VARCHAR) AS j FROM (SELECT ${select} FROM ${source}) t ORDER BY ${order}`,
  );
  return out.map((r) => JSON.parse(r.j) as unknown);
}

describe('files destination', () => {
  it('writes table/dt=YYYY-MM-DD/part-N.parquet with a manifest, and DuckDB loads it as is, equal to the store', async () => {
    const result = await runSync(ts.store, 'lake', files('lake', 'parquet'), options());
    expect(result.error).toBeNull();
    const manifest = manifestOf('lake');
    expect(Object.keys(manifest.tables)).toEqual([...SYNC_TABLE_NAMES]);
    for (const table of SYNC_TABLE_NAMES) {
      const entry = manifest.tables[table];
      expect(entry?.files.length, table).toBeGreaterThan(0);
      for (const f of entry?.files ?? []) {
        expect(f.path).toMatch(new RegExp(`^${table}/dt=\\d{4}-\\d{2}-\\d{2}/part-\\d+\\.parquet$`));
        expect(f.path.startsWith(`${table}/dt=${f.dt}/`)).toBe(true);
        expect(statSync(join(lake('lake'), f.path)).size).toBe(f.bytes);
        expect(await sha256File(join(lake('lake'), f.path))).toBe(f.sha256);
      }
      const count = await ts.store.one<{ n: number }>(`SELECT count(*) AS n FROM ${quoteIdent(table)}`);
      expect(entry?.rows, table).toBe(count?.n);
      expect(await rows(table, { lake: 'lake', format: 'parquet' }), table).toEqual(await rows(table, null));
    }
    expect(manifest.tables['creators']?.schema.map((c) => c.name)).not.toContain('search_text');
    expect(readdirSync(lake('lake')).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('parquetjs-lite, an independent reader, reads the creators back row by row as the store has them', async () => {
    const got: Record<string, unknown>[] = [];
    for (const f of manifestOf('lake').tables['creators']?.files ?? []) {
      const reader = await parquet.ParquetReader.openFile(join(lake('lake'), f.path));
      const cursor = reader.getCursor();
      for (let rec = await cursor.next(); rec; rec = await cursor.next()) got.push(rec);
      await reader.close();
    }
    const pick = (r: Record<string, unknown>) => ({
      creator_id: Number(r['creator_id']),
      handle: r['handle'],
      platform: r['platform'],
      bio: r['bio'] ?? null,
      followers: Number(r['followers']),
      verified: r['verified'],
      engagement_rate:
        r['engagement_rate'] === undefined || r['engagement_rate'] === null ? null : Number(r['engagement_rate']),
      updated_at: (r['updated_at'] as Date).toISOString(),
    });
    const expected = await ts.store.all('SELECT * FROM creators ORDER BY creator_id');
    expect(got.map(pick).sort((a, b) => a.creator_id - b.creator_id)).toEqual(expected.map(pick));
  });

  it('a second run adds no files for unchanged tables, replaces the re-sent day and drops unlisted files, so each row is there once', async () => {
    const before = manifestOf('lake');
    // A file no manifest names, as a run cut off before its manifest would leave.
    const orphan = join(
      lake('lake'),
      'creators',
      `dt=${before.tables['creators']?.files[0]?.dt ?? ''}`,
      'part-99.parquet',
    );
    writeFileSync(orphan, 'left over');
    const again = await runSync(ts.store, 'lake', files('lake', 'parquet'), options());
    expect(existsSync(orphan)).toBe(false);
    expect(again.status).toBe('succeeded');
    const after = manifestOf('lake');
    expect(after.tables['creators']?.files).toEqual(before.tables['creators']?.files);
    expect(again.tables.find((t) => t.table === 'creators')?.rows_read).toBe(0);
    const lastDay = before.tables['follower_history']?.files.at(-1);
    expect(existsSync(join(lake('lake'), lastDay?.path ?? 'x'))).toBe(false);
    for (const table of ['follower_history', 'campaign_creators', 'campaign_metrics'] as const) {
      expect(await rows(table, { lake: 'lake', format: 'parquet' }), table).toEqual(await rows(table, null));
    }
  });

  it.each(['csv', 'ndjson'] as const)('writes %s the same way, read back equal to the store', async (format) => {
    const result = await runSync(
      ts.store,
      `lake-${format}`,
      files(`lake-${format}`, format, ['creators', 'campaigns']),
      options(),
    );
    expect(result.error).toBeNull();
    const cols = 'creator_id, handle, platform, followers, verified, bio';
    expect(await rows('creators', { lake: `lake-${format}`, format }, cols)).toEqual(
      await rows('creators', null, cols),
    );
    const campaignCols = 'campaign_id, name, status, budget';
    expect(await rows('campaigns', { lake: `lake-${format}`, format }, campaignCols)).toEqual(
      await rows('campaigns', null, campaignCols),
    );
    expect(manifestOf(`lake-${format}`).tables['creators']?.files[0]?.path).toMatch(new RegExp(`\\.${format}$`));
  });
});

describe('cds sync and scheduled syncs', () => {
  const destinationsFile = (): string => {
    const path = join(ts.dir, 'destinations.json');
    writeFileSync(
      path,
      JSON.stringify({
        'lake-op': { type: 'files', path: 'lake-op', tables: ['campaigns', 'campaign_creators'] },
        'lake-cron': { type: 'files', path: 'lake-cron', tables: ['campaigns'], schedule: '* * * * * *' },
        warehouse: { type: 'postgres', url: 'postgres://u:secret@127.0.0.1:1/db' },
      }),
    );
    return path;
  };

  it('the sync admin op runs a configured destination with progress, and names what is wrong otherwise', async () => {
    const config = testConfig(ts.dir, { CDS_SYNC_DESTINATIONS: destinationsFile() });
    const updates: ProgressUpdate[] = [];
    const ctx = {
      store: ts.store,
      state: ts.state,
      config,
      progress: (u: ProgressUpdate) => {
        updates.push(u);
      },
    };
    const result = (await runOp('sync', JSON.stringify({ destination: 'lake-op' }), ctx)) as {
      status: string;
      tables: unknown[];
    };
    expect(result.status).toBe('succeeded');
    expect(result.tables).toHaveLength(2);
    expect(updates.some((u) => u.unit === 'rows' && u.step === 'sync lake-op campaigns')).toBe(true);
    expect(existsSync(join(ts.dir, 'lake-op', '_manifest.json'))).toBe(true);
    await expect(runOp('sync', JSON.stringify({ destination: 'nope' }), ctx)).rejects.toThrow(
      /unknown destination nope; configured: lake-op, lake-cron, warehouse/,
    );
    await expect(runOp('sync', JSON.stringify({ destination: 'lake-op', tables: ['posts'] }), ctx)).rejects.toThrow(
      /lake-op does not sync posts/,
    );
    const list = await runOp('sync.list', '{}', ctx);
    expect(JSON.stringify(list)).not.toContain('secret');
    const runs = (await runOp('sync.runs', JSON.stringify({ destination: 'lake-op' }), ctx)) as Array<{
      status: string;
    }>;
    expect(runs.map((r) => r.status)).toEqual(['succeeded']);
  });

  it('a destination with a schedule is synced by the sync worker, one without is not', async () => {
    const config = testConfig(ts.dir, { CDS_SYNC_DESTINATIONS: destinationsFile() });
    expect(createSyncWorkers({ store: ts.store, config: testConfig(ts.dir), logger: createLogger(config) })).toEqual(
      [],
    );
    const [worker] = createSyncWorkers({ store: ts.store, config, logger: createLogger(config) });
    worker?.start();
    try {
      await eventually(
        async () =>
          (
            await ts.store.all(`SELECT pipeline FROM pipeline_runs
        WHERE kind = 'sync' AND pipeline = 'lake-cron' AND status = 'succeeded'`)
          ).length > 0,
        10_000,
        'a scheduled sync of lake-cron',
      );
    } finally {
      await worker?.stop();
    }
    expect(existsSync(join(ts.dir, 'lake-cron', 'campaigns'))).toBe(true);
  });
});
