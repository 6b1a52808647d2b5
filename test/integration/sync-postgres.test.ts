import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pushPostgres } from '../../connectors/postgres/client.js';
import type { PostgresDestinationConfig } from '../../connectors/postgres/config.js';
import { postgresDestination } from '../../connectors/postgres/index.js';
import type { SyncBatch } from '../../connectors/warehouse/destination.js';
import { runSync, type SyncOptions } from '../../connectors/warehouse/runner.js';
import {
  sourceRelation,
  SYNC_TABLE_NAMES,
  SYNC_TABLES,
  type SyncTableName,
} from '../../connectors/warehouse/tables.js';
import { quoteIdent } from '../../data/sql.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let ts: TestStore;
let pg: TestPostgres;

beforeAll(async () => {
  [ts, pg] = await Promise.all([createTestStore({ creators: 100 }), startTestPostgres()]);
});

afterAll(async () => {
  await Promise.all([pg?.cleanup(), ts?.cleanup()]);
});

const destination = (schema: string, extra: Partial<PostgresDestinationConfig> = {}): PostgresDestinationConfig => ({
  type: 'postgres',
  url: pg.url,
  schema,
  connect_timeout_ms: 2000,
  copy_part_rows: 5000,
  ...extra,
});

const options = (extra: Partial<SyncOptions> = {}): SyncOptions => ({
  workDir: join(ts.dir, 'sync-tmp'),
  retry: { attempts: 3, baseDelayMs: 10, maxDelayMs: 40 },
  ...extra,
});

/** A timestamp as text the same way on both sides: `YYYY-MM-DDTHH:MM:SS[.ffffff]`. */
const normalise = (row: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      typeof v === 'string' && /^\d{4}-\d{2}-\d{2} \d/.test(v) ? v.replace(' ', 'T') : v,
    ]),
  );

/** Both sides sorted by key here, so the server's collation cannot reorder text keys. */
function byKey(table: SyncTableName, rows: Record<string, unknown>[]): Record<string, unknown>[] {
  const key = SYNC_TABLES[table].key;
  const cmp = (a: unknown, b: unknown): number =>
    typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
  return rows.sort((x, y) => key.reduce((d, k) => d || cmp(x[k], y[k]), 0));
}

async function storeRows(table: SyncTableName): Promise<Record<string, unknown>[]> {
  const spec = SYNC_TABLES[table];
  const exclude = spec.exclude.length > 0 ? ` EXCLUDE (${spec.exclude.map(quoteIdent).join(', ')})` : '';
  const rows = await ts.store.all<{ j: string }>(
    `SELECT CAST(to_json(t) AS VARCHAR) AS j FROM (SELECT *${exclude} FROM ${sourceRelation(spec)}) t ORDER BY ${spec.key.map((k) => `t.${quoteIdent(k)}`).join(', ')}`,
  );
  return byKey(
    table,
    rows.map((r) => normalise(JSON.parse(r.j) as Record<string, unknown>)),
  );
}

async function pgRows(schema: string, table: SyncTableName): Promise<Record<string, unknown>[]> {
  const spec = SYNC_TABLES[table];
  const rows = await pg.query<{ j: Record<string, unknown> }>(
    `SELECT to_jsonb(t) AS j FROM ${quoteIdent(schema)}.${quoteIdent(table)} t ORDER BY ${spec.key.map((k) => `t.${quoteIdent(k)}`).join(', ')}`,
  );
  return byKey(
    table,
    rows.map((r) => normalise(r.j)),
  );
}

async function expectSameAsStore(schema: string, tables: readonly SyncTableName[] = SYNC_TABLE_NAMES): Promise<void> {
  for (const table of tables) expect(await pgRows(schema, table), table).toEqual(await storeRows(table));
}

describe('PostgreSQL destination', () => {
  it('a first sync creates the schema and its tables and loads every row as the store has it', async () => {
    const result = await runSync(ts.store, 'warehouse', destination('cds'), options());
    expect(result.error).toBeNull();
    expect(result.status).toBe('succeeded');
    expect(result.tables.map((t) => t.table)).toEqual([...SYNC_TABLE_NAMES]);
    await expectSameAsStore('cds');
    const keys = await pg.query<{ n: string }>(
      `SELECT count(*) AS n FROM information_schema.table_constraints WHERE table_schema = 'cds' AND constraint_type = 'PRIMARY KEY'`,
    );
    expect(Number(keys[0]?.n)).toBe(SYNC_TABLE_NAMES.length + 1);
    const state = await pg.query<{ table_name: string; watermark: string | null; run_id: string }>(
      'SELECT table_name, watermark, run_id FROM cds._cds_sync_state ORDER BY table_name COLLATE "C"',
    );
    expect(state.map((r) => r.table_name)).toEqual([...SYNC_TABLE_NAMES].sort());
    expect(state.find((r) => r.table_name === 'creators')).toMatchObject({
      watermark: result.tables[0]?.watermark_to,
      run_id: result.run_id,
    });
  });

  it('a sync run twice leaves the same rows and changes none the second time', async () => {
    const before = await pgRows('cds', 'follower_history');
    const again = await runSync(ts.store, 'warehouse', destination('cds'), options());
    expect(again.status).toBe('succeeded');
    expect(again.rows_changed).toBe(0);
    expect(again.tables.find((t) => t.table === 'creators')?.rows_read).toBe(0);
    expect(await pgRows('cds', 'follower_history')).toEqual(before);
    await expectSameAsStore('cds');
  });

  it('a changed creator updates exactly one row', async () => {
    const id = (await ts.store.one<{ id: number }>('SELECT min(creator_id) AS id FROM creators'))?.id ?? 0;
    await ts.store.run(
      `UPDATE creators SET followers = followers + 1234, bio = 'new bio', updated_at = TIMESTAMP '2026-11-21 12:34:56.789012' WHERE creator_id = ?`,
      [id],
    );
    const xminBefore = await pg.query<{ n: string }>('SELECT count(DISTINCT xmin::text) AS n FROM cds.creators');
    const result = await runSync(ts.store, 'warehouse', destination('cds'), options({ tables: ['creators'] }));
    const creators = result.tables[0];
    expect(creators).toMatchObject({
      table: 'creators',
      rows_read: 1,
      rows_changed: 1,
      watermark_to: '2026-11-21 12:34:56.789012',
    });
    const changed = await pg.query<{ followers: string; bio: string }>(
      'SELECT followers, bio FROM cds.creators WHERE creator_id = $1',
      [id],
    );
    const inStore = await ts.store.one<{ followers: number }>('SELECT followers FROM creators WHERE creator_id = ?', [
      id,
    ]);
    expect(changed[0]).toEqual({ followers: String(inStore?.followers), bio: 'new bio' });
    // Exactly one row was rewritten: one more distinct transaction id among the rows.
    const xminAfter = await pg.query<{ n: string }>('SELECT count(DISTINCT xmin::text) AS n FROM cds.creators');
    expect(Number(xminAfter[0]?.n)).toBe(Number(xminBefore[0]?.n) + 1);
    await expectSameAsStore('cds', ['creators']);
  });

  it("a creator's re-measured audience dimension replaces the old one, dropped keys included", async () => {
    const group = await ts.store.one<{ creator_id: number; dimension: string; n: number }>(
      'SELECT creator_id, dimension, count(*) AS n FROM audience GROUP BY ALL HAVING count(*) > 2 ORDER BY ALL LIMIT 1',
    );
    await ts.store.run(
      `DELETE FROM audience WHERE creator_id = ? AND dimension = ? AND key = (SELECT min(key) FROM audience WHERE creator_id = ? AND dimension = ?)`,
      [group?.creator_id ?? 0, group?.dimension ?? '', group?.creator_id ?? 0, group?.dimension ?? ''],
    );
    await ts.store.run(
      `UPDATE audience SET as_of = TIMESTAMP '2026-11-21 13:00:00', pct = pct + 0.5 WHERE creator_id = ? AND dimension = ?`,
      [group?.creator_id ?? 0, group?.dimension ?? ''],
    );
    const result = await runSync(ts.store, 'warehouse', destination('cds'), options({ tables: ['audience'] }));
    expect(result.tables[0]).toMatchObject({ rows_read: (group?.n ?? 0) - 1, rows_changed: group?.n });
    await expectSameAsStore('cds', ['audience']);
  });

  it('runs are recorded as sync runs with their counts, and watermarks per table', async () => {
    const runs = await ts.store.all<{ status: string; rows_changed: number; source: string }>(
      `SELECT status, rows_changed, source FROM pipeline_runs WHERE kind = 'sync' AND pipeline = 'warehouse' ORDER BY started_at`,
    );
    expect(runs.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(runs.map((r) => r.rows_changed).slice(1, 3)).toEqual([0, 1]);
    expect(runs[0]?.source).toBe('postgres');
    const state = await ts.store.all<{ table_name: string; watermark: string | null }>(
      `SELECT table_name, watermark FROM sync_state WHERE destination = 'warehouse' ORDER BY table_name`,
    );
    expect(state.find((s) => s.table_name === 'creators')?.watermark).toBe('2026-11-21 12:34:56.789012');
    expect(state).toHaveLength(SYNC_TABLE_NAMES.length);
  });

  it('a Postgres that goes away mid-sync fails the run cleanly and the next run completes it', async () => {
    const retries: string[] = [];
    let stopped = false;
    const failed = await runSync(
      ts.store,
      'faulty',
      destination('cds_fault'),
      options({
        // Stops the server while follower_history's COPY is in flight (its first chunk sent, not committed).
        progress: async (u) => {
          if (!stopped && u.step.endsWith('follower_history') && u.done > 0) {
            stopped = true;
            await pg.stop();
          }
        },
        onRetry: (table, error) => retries.push(`${table}:${error.transient}`),
      }),
    );
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^follower_history: gave up after retries: PostgreSQL/);
    expect(retries).toEqual(['follower_history:true', 'follower_history:true']);
    expect(failed.tables.map((t) => t.table)).toEqual(['creators']);
    const run = await ts.store.one<{ status: string; error: string; finished_at: unknown }>(
      'SELECT status, error, finished_at FROM pipeline_runs WHERE run_id = ?',
      [failed.run_id],
    );
    expect(run).toMatchObject({ status: 'failed', error: failed.error });
    expect(run?.finished_at).not.toBeNull();

    await pg.start();
    // The table whose transaction was cut off left nothing behind.
    const leftover = await pg.query(
      `SELECT 1 FROM information_schema.tables WHERE table_schema = 'cds_fault' AND table_name = 'follower_history'`,
    );
    expect(leftover).toHaveLength(0);
    const next = await runSync(ts.store, 'faulty', destination('cds_fault'), options());
    expect(next.error).toBeNull();
    expect(next.tables.map((t) => [t.table, t.rows_read > 0])).toEqual(
      SYNC_TABLE_NAMES.map((t) => [t, t !== 'creators']),
    );
    await expectSameAsStore('cds_fault');
  });

  it('an export that fails half-way fails the push without hanging, and leaves no table behind', async () => {
    const spec = SYNC_TABLES.creators;
    const workDir = join(ts.dir, 'half-way');
    mkdirSync(workDir, { recursive: true });
    const batch: SyncBatch = {
      runId: 'run_test',
      destination: 'half',
      table: spec,
      columns: [{ name: 'creator_id', type: 'INTEGER' }],
      query: {
        sql: `SELECT CASE WHEN creator_id > 50 THEN error('export broke') ELSE creator_id END AS creator_id FROM creators`,
        params: [],
      },
      watermark: { from: null, to: null },
      runDate: '2026-11-21',
      workDir,
    };
    await expect(pushPostgres(destination('cds_half'), ts.store, batch, () => undefined)).rejects.toThrow(
      /export broke/,
    );
    expect(await pg.query(`SELECT 1 FROM information_schema.tables WHERE table_schema = 'cds_half'`)).toHaveLength(0);
  });

  it('the connection test passes on a reachable server and names the reason otherwise', async () => {
    await expect(postgresDestination.testConnection(destination('cds'))).resolves.toBeUndefined();
    const wrong = destination('cds', { url: pg.url.replace(':cds-test@', ':wrong@') });
    await expect(postgresDestination.testConnection(wrong)).rejects.toMatchObject({
      transient: false,
      message: expect.stringMatching(/authentication failed/),
    });
  });

  it('wrong credentials stop the run at once with the reason, without retries', async () => {
    const retries: string[] = [];
    const bad = destination('cds_bad', { url: pg.url.replace(':cds-test@', ':wrong@') });
    const result = await runSync(ts.store, 'bad', bad, options({ onRetry: (t) => retries.push(t) }));
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^creators: stopped: authentication failed/);
    expect(retries).toEqual([]);
  });

  it('a destination table of another shape is a terminal schema mismatch', async () => {
    await pg.query('CREATE SCHEMA cds_mm; CREATE TABLE cds_mm.campaigns (campaign_id text PRIMARY KEY, budget text)');
    const result = await runSync(ts.store, 'mm', destination('cds_mm', { tables: ['campaigns'] }), options());
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      /^campaigns: stopped: schema mismatch: cds_mm.campaigns.budget is text in PostgreSQL but double precision/,
    );
  });
});
