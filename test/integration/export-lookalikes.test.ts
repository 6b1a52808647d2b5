import { parse as parseCsv } from 'csv-parse/sync';
import { RecordBatchStreamReader } from 'apache-arrow';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error parquetjs-lite ships no types
import parquet from 'parquetjs-lite';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LookalikeItem } from '../../data/creators/search-index/lookalikes.js';
import { createExportWorker, type ExportFormat, type ExportWorker } from '../../connectors/exports/index.js';
import { lookalikesReady, startTestApp, type TestApp } from '../helpers/app.js';
import { NUMERIC_EXTREME_VALUES } from '../../tools/fuzz-openapi.js';

/** A match as the lookalikes endpoint answers it. */
type Match = LookalikeItem;
interface Job {
  id: string;
  status: string;
  source: string;
  handle?: string;
  basis?: string;
  limit?: number;
  filters?: Record<string, string | number>;
  row_count: number | null;
  error: string | null;
  download_url: string | null;
}
/** One exported row, whatever the format, as the test compares it. */
interface Row {
  rank: number;
  handle: string;
  platform: string;
  similarity: number;
  reasons: string[];
  reason_kinds: string[];
  followers: number;
}

let t: TestApp;
let worker: ExportWorker;
let key: string;
let creator: { handle: string; platform: string; country: string };
let dir: string;

const FIELDS = ['rank', 'handle', 'platform', 'similarity', 'reasons', 'reason_kinds', 'followers'];

async function post(json: unknown, as = key): Promise<Response> {
  return t.api('/v1/exports', { key: as, method: 'POST', json });
}

/** Every lookalike the endpoint gives for `query`, following next_cursor. */
async function walk(query: string): Promise<Match[]> {
  const items: Match[] = [];
  let cursor: string | null = null;
  do {
    const res = await t.api(
      `/v1/creators/${encodeURIComponent(creator.handle)}/lookalikes?${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { key },
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { creators: Match[]; next_cursor: string | null };
    items.push(...body.creators);
    cursor = body.next_cursor;
  } while (cursor);
  return items;
}

/** Creates the export, runs it with a worker of its own, and answers the finished job and the file. */
async function exported(json: Record<string, unknown>): Promise<{ job: Job; file: Buffer }> {
  const res = await post(json);
  expect(res.status, await res.clone().text()).toBe(202);
  const queued = (await res.json()) as Job;
  expect(await worker.runNext()).toBe(true);
  const job = (await (await t.api(`/v1/exports/${queued.id}`, { key })).json()) as Job;
  expect(job.status, job.error ?? '').toBe('succeeded');
  const dl = await t.api(job.download_url as string, { key });
  expect(dl.status).toBe(200);
  return { job, file: Buffer.from(await dl.arrayBuffer()) };
}

/** The rows of a file, read with a reader independent of the writer (csv-parse, parquetjs-lite, apache-arrow). */
async function rowsOf(format: ExportFormat, file: Buffer): Promise<Row[]> {
  switch (format) {
    case 'json':
      return (JSON.parse(file.toString('utf8')) as Row[]).map(normal);
    case 'ndjson':
      return file
        .toString('utf8')
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => normal(JSON.parse(l) as Row));
    case 'csv':
      return (parseCsv(file, { columns: true }) as Array<Record<string, string>>).map((r) =>
        normal({
          ...r,
          reasons: JSON.parse(r['reasons'] ?? '[]'),
          reason_kinds: JSON.parse(r['reason_kinds'] ?? '[]'),
        } as unknown as Row),
      );
    case 'parquet': {
      const path = join(dir, `read-${Date.now()}.parquet`);
      writeFileSync(path, file);
      const reader = await parquet.ParquetReader.openFile(path);
      const cursor = reader.getCursor();
      const rows: Row[] = [];
      for (let r = await cursor.next(); r; r = await cursor.next()) {
        const list = (v: { list?: Array<{ item?: string; element?: string }> } | null) =>
          (v?.list ?? []).map((x) => String(x.item ?? x.element));
        rows.push(normal({ ...r, reasons: list(r.reasons), reason_kinds: list(r.reason_kinds) } as Row));
      }
      await reader.close();
      return rows;
    }
    case 'arrow': {
      const rows: Row[] = [];
      const reader = RecordBatchStreamReader.from(file);
      for (const batch of reader)
        for (const r of batch) {
          const o = r.toJSON() as Record<string, unknown>;
          const list = (v: unknown) => (v ? [...(v as Iterable<string>)] : []);
          rows.push(normal({ ...o, reasons: list(o['reasons']), reason_kinds: list(o['reason_kinds']) } as Row));
        }
      return rows;
    }
  }
}

function normal(r: Row): Row {
  return {
    rank: Number(r.rank),
    handle: String(r.handle),
    platform: String(r.platform),
    similarity: Number(r.similarity),
    reasons: r.reasons.map(String),
    reason_kinds: r.reason_kinds.map(String),
    followers: Number(r.followers),
  };
}

/** What the endpoint's matches are as export rows. */
function expectedRows(matches: readonly Match[]): Row[] {
  return matches.map((m, i) => ({
    rank: i + 1,
    handle: m.handle,
    platform: m.platform,
    similarity: m.similarity,
    reasons: m.reasons.map((r) => r.detail),
    reason_kinds: m.reasons.map((r) => r.kind),
    followers: m.followers,
  }));
}

beforeAll(async () => {
  t = await startTestApp({ creators: 2000 });
  worker = createExportWorker({ store: t.store, state: t.state, config: t.config, logger: pino({ level: 'silent' }) });
  key = await t.key({ plan: 'enterprise' });
  dir = mkdtempSync(join(tmpdir(), 'cds-export-lookalikes-'));
  const row = await t.store.one<{
    handle: string;
    platform: string;
    country: string;
  }>(`SELECT c.handle, c.platform, c.country
    FROM creator_personas p JOIN creators c USING (creator_id) WHERE c.country IS NOT NULL ORDER BY p.creator_id LIMIT 1`);
  creator = row!;
  await lookalikesReady(t, creator, key);
}, 300_000);
afterAll(async () => {
  await t?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a lookalikes export', () => {
  const FORMATS: ExportFormat[] = ['json', 'ndjson', 'csv', 'parquet', 'arrow'];

  it.each(FORMATS)(
    'in %s holds the endpoint’s ranked matches, with similarity and reasons, in its order',
    async (format) => {
      const matches = await walk(`platform=${creator.platform}&basis=both&limit=100&followers_max=500000`);
      expect(matches.length).toBeGreaterThan(30);
      const limit = 30;
      const { job, file } = await exported({
        source: 'lookalikes',
        handle: creator.handle,
        platform: creator.platform,
        basis: 'both',
        filters: { followers_max: 500_000 },
        limit,
        format,
        fields: FIELDS,
      });
      expect(job).toMatchObject({
        source: 'lookalikes',
        handle: creator.handle,
        basis: 'both',
        limit,
        filters: { followers_max: 500_000 },
        row_count: limit,
      });
      const rows = await rowsOf(format, file);
      expect(rows).toEqual(expectedRows(matches.slice(0, limit)));
      expect(rows.every((r) => r.followers <= 500_000 && r.reasons.length > 0)).toBe(true);
    },
  );

  it('defaults to rank, similarity, reasons and reason_kinds before the creator columns, and exports every match up to the limit', async () => {
    const matches = await walk(`platform=${creator.platform}&basis=content&limit=100&country=${creator.country}`);
    const { job, file } = await exported({
      source: 'lookalikes',
      handle: creator.handle,
      platform: creator.platform,
      basis: 'content',
      filters: { country: creator.country },
      limit: 10_000,
      format: 'ndjson',
    });
    const rows = file
      .toString('utf8')
      .split('\n')
      .filter((l) => l.length > 0)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(Object.keys(rows[0]!).slice(0, 6)).toEqual([
      'rank',
      'similarity',
      'reasons',
      'reason_kinds',
      'handle',
      'platform',
    ]);
    expect(rows.map((r) => r['handle'])).toEqual(matches.map((m) => m.handle));
    expect(job.row_count).toBe(matches.length);
    expect(rows.every((r) => r['country'] === creator.country)).toBe(true);
  });

  it('limit: accepted exactly as a whole number from 1 to 10,000, otherwise a 400 naming it, never a 5xx', async () => {
    const base = { source: 'lookalikes', handle: creator.handle, platform: creator.platform, format: 'csv' };
    for (const value of [...NUMERIC_EXTREME_VALUES, 0, 1, 10_000, 10_001, -1, 1.5, '60']) {
      const res = await post({ ...base, limit: value });
      const label = `limit ${JSON.stringify(value)}: ${await res.clone().text()}`;
      expect(res.status, label).toBeLessThan(500);
      const accepted = typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 10_000;
      expect(res.status >= 200 && res.status < 300, label).toBe(accepted);
      if (!accepted) {
        expect(res.status, label).toBe(400);
        expect(((await res.json()) as { errors: Array<{ field: string }> }).errors.map((e) => e.field)).toContain(
          'limit',
        );
      }
    }
  });

  it('refuses platform and sort among the filters, an unknown creator and a list of another account', async () => {
    const base = { source: 'lookalikes', handle: creator.handle, platform: creator.platform, format: 'csv' };
    const bad = await post({ ...base, filters: { platform: 'tiktok', sort: '-followers' } });
    expect(bad.status).toBe(400);
    const fields = ((await bad.json()) as { errors: Array<{ field: string }> }).errors.map((e) => e.field);
    expect(fields).toEqual(['filters.platform', 'filters.sort']);
    expect((await post({ ...base, handle: '@nobody.here.at.all' })).status).toBe(404);
    const other = await t.key();
    const list = await t.api('/v1/lists', { key: other, method: 'POST', json: { name: 'theirs' } });
    expect(list.status).toBe(201);
    const { id } = (await list.json()) as { id: string };
    const foreign = await post({ ...base, filters: { exclude_list: id } });
    expect(foreign.status).toBe(400);
    expect(((await foreign.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe(
      'filters.exclude_list',
    );
  });
});
