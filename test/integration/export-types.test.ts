import { DuckDBInstance } from '@duckdb/node-api';
import { tableFromIPC } from 'apache-arrow';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createExportWorker, type ExportWorker } from '../../connectors/exports/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let worker: ExportWorker;
let key: string;
const dir = mkdtempSync(join(tmpdir(), 'cds-export-types-'));

beforeAll(async () => {
  t = await startTestApp({ creators: 300 });
  worker = createExportWorker({ store: t.store, state: t.state, config: t.config, logger: pino({ level: 'silent' }) });
  key = await t.key({ plan: 'enterprise' });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

const FIELDS = ['handle', 'followers', 'posts_count', 'updated_at'];

async function exported(format: 'parquet' | 'arrow'): Promise<Buffer> {
  const res = await t.api('/v1/exports', {
    key,
    method: 'POST',
    json: { source: 'search', filters: { followers_min: '1000' }, format, fields: FIELDS },
  });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  expect(await worker.runNext()).toBe(true);
  return Buffer.from(await (await t.api(`/v1/exports/${id}/download`, { key })).arrayBuffer());
}

it('Parquet and Arrow give each field the same type: 64-bit integers and UTC-adjusted microsecond timestamps', async () => {
  const parquet = join(dir, 'x.parquet');
  writeFileSync(parquet, await exported('parquet'));
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const schema = (
    await c.runAndReadAll(`SELECT name, type, logical_type::VARCHAR AS logical FROM parquet_schema('${parquet}')`)
  ).getRowObjectsJS();
  c.closeSync();
  db.closeSync();
  const col = (name: string) => schema.find((r) => r['name'] === name);
  expect(col('posts_count')?.['type']).toBe('INT64');
  expect(col('followers')?.['type']).toBe('INT64');
  expect(String(col('updated_at')?.['logical'])).toMatch(/isAdjustedToUTC=(1|true)/);
  expect(String(col('updated_at')?.['logical'])).toMatch(/MICROS/);

  const arrow = tableFromIPC(await exported('arrow'));
  expect(String(arrow.schema.fields.find((f) => f.name === 'posts_count')?.type)).toBe('Int64');
  expect(String(arrow.schema.fields.find((f) => f.name === 'updated_at')?.type)).toMatch(/Timestamp<MICROSECOND, UTC>/);
});

it('an export echoes its numeric filters as the numbers the search read, not as strings', async () => {
  const res = await t.api('/v1/exports', {
    key,
    method: 'POST',
    json: { source: 'search', filters: { followers_min: 1000, niche: 'food', engagement_min: '1.5' }, format: 'csv' },
  });
  expect(res.status).toBe(202);
  const job = (await res.json()) as { filters: Record<string, unknown> };
  expect(job.filters).toEqual({ followers_min: 1000, niche: 'food', engagement_min: 1.5 });
  expect(await worker.runNext()).toBe(true);
});

it("a search export with exclude_list leaves out the members of the caller's list, counted and written", async () => {
  const members = await t.store.all<{ handle: string; platform: string }>(
    `SELECT handle, platform FROM creators WHERE niche = 'food' ORDER BY creator_id LIMIT 2`,
  );
  const list = (await (await t.api('/v1/lists', { key, method: 'POST', json: { name: 'contacted' } })).json()) as {
    id: string;
  };
  expect(
    (await t.api(`/v1/lists/${list.id}/creators`, { key, method: 'POST', json: { creators: members } })).status,
  ).toBe(200);
  const food = (await t.store.one<{ n: number }>(`SELECT count(*) AS n FROM creators WHERE niche = 'food'`))?.n ?? 0;
  const res = await t.api('/v1/exports', {
    key,
    method: 'POST',
    json: {
      source: 'search',
      filters: { niche: 'food', exclude_list: list.id },
      format: 'ndjson',
      fields: ['handle', 'platform'],
    },
  });
  expect(res.status).toBe(202);
  const { id, row_count: counted } = (await res.json()) as { id: string; row_count: number };
  expect(counted).toBe(food - 2);
  expect(await worker.runNext()).toBe(true);
  const rows = (await (await t.api(`/v1/exports/${id}/download`, { key })).text())
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { handle: string; platform: string });
  expect(rows).toHaveLength(food - 2);
  for (const m of members) expect(rows.some((r) => r.handle === m.handle && r.platform === m.platform)).toBe(false);
});
