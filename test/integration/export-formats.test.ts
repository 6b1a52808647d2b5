import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { RecordBatchStreamReader } from 'apache-arrow';
// @ts-expect-error parquetjs-lite ships no types
import parquet from 'parquetjs-lite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import {
  createExport,
  createExportWorker,
  getExport,
  openExportDownload,
  type ExportFormat,
} from '../../connectors/exports/index.js';
import { resolveFields } from '../../connectors/exports/export-fields.js';
import { exportQuerySql, SCOPED_PIVOT_MAX_ROWS } from '../../connectors/exports/export-source.js';
import { createTestStore, setContentLists, type TestStore } from '../helpers/store.js';
import { PlanCatalogue } from '../../data/plans/plan.service.js';

let t: TestStore;
let caller: { accountId: string; plan: 'enterprise' };
const logger = pino({ level: 'silent' });

const FIELDS = [
  'handle',
  'platform',
  'display_name',
  'followers',
  'engagement_rate',
  'verified',
  'updated_at',
  'audience_top_country_1',
];
type Expected = {
  handle: string;
  platform: string;
  display_name: string | null;
  followers: number;
  engagement_rate: number | null;
  verified: boolean;
  updated_at: Date;
  audience_top_country_1: string | null;
};

async function expectedRows(): Promise<Expected[]> {
  // An independent statement of the same rows: niche beauty, by followers descending, creator id as tiebreak.
  return t.store.all<Expected>(`SELECT c.handle, c.platform, c.display_name, c.followers, c.engagement_rate, c.verified, c.updated_at,
      (SELECT arg_max(key, pct) FROM audience a WHERE a.creator_id = c.creator_id AND a.dimension = 'country') AS audience_top_country_1
    FROM creators c WHERE c.niche = 'beauty' ORDER BY c.followers DESC, c.creator_id`);
}

async function exportFile(format: ExportFormat, fields: string[] = FIELDS): Promise<{ path: string; id: string }> {
  const job = await createExport(t.store, t.state, new PlanCatalogue(t.state), caller, {
    source: 'search',
    filters: { niche: 'beauty' },
    format,
    fields,
  });
  expect(job.status).toBe('queued');
  const worker = createExportWorker({ store: t.store, state: t.state, config: t.config, logger });
  expect(await worker.runNext()).toBe(true);
  const done = await getExport(t.state, caller.accountId, job.id);
  expect(done.status).toBe('succeeded');
  const download = await openExportDownload(t.state, t.config, caller.accountId, job.id);
  await download.file.close();
  const path = join(t.config.exportsDir, download.fileName);
  const bytes = readFileSync(path);
  expect({ bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') }).toEqual({
    bytes: done.bytes,
    sha256: done.sha256,
  });
  return { path, id: job.id };
}

function compareText(rows: Array<Record<string, unknown>>, expected: Expected[]): void {
  expect(rows.length).toBe(expected.length);
  rows.forEach((row, i) => {
    const e = expected[i] as Expected;
    expect(row['handle']).toBe(e.handle);
    expect(row['platform']).toBe(e.platform);
    expect(row['display_name'] ?? null).toBe(e.display_name?.startsWith('=') ? `'${e.display_name}` : e.display_name);
    expect(Number(row['followers'])).toBe(e.followers);
    expect(Number(row['engagement_rate'])).toBeCloseTo(e.engagement_rate ?? Number.NaN, 9);
    expect(String(row['verified'])).toBe(String(e.verified));
    expect(row['updated_at']).toBe(e.updated_at.toISOString());
    expect(row['audience_top_country_1']).toBe(e.audience_top_country_1);
  });
}

beforeAll(async () => {
  t = await createTestStore({ creators: 2000 });
  caller = { accountId: t.demoAccountId as string, plan: 'enterprise' };
  // A display name a spreadsheet would run as a formula, on the biggest beauty creator.
  await t.store.run(`UPDATE creators SET display_name = '=1+2' WHERE creator_id = (
    SELECT creator_id FROM creators WHERE niche = 'beauty' ORDER BY followers DESC, creator_id LIMIT 1)`);
  // Multi-byte text on the next one: the Arrow writer encodes Utf8 columns itself.
  await t.store.run(`UPDATE creators SET display_name = 'Zoë 🎉 日本' WHERE creator_id = (
    SELECT creator_id FROM creators WHERE niche = 'beauty' ORDER BY followers DESC, creator_id LIMIT 1 OFFSET 1)`);
});
afterAll(async () => t.cleanup());

describe('the audience pivot of a search export', () => {
  it('gives the same rows whether it reads only the exported creators (small exports) or every creator (large ones)', async () => {
    const source = { type: 'search' as const, filters: { niche: 'beauty' } };
    const fields = resolveFields('search', undefined);
    const scoped = exportQuerySql(source, caller.accountId, fields, 'csv', SCOPED_PIVOT_MAX_ROWS);
    const unscoped = exportQuerySql(source, caller.accountId, fields, 'csv', SCOPED_PIVOT_MAX_ROWS + 1);
    expect(scoped.sql).toContain('creator_id IN');
    expect(unscoped.sql).not.toContain('creator_id IN');
    const rows = await t.store.all(scoped.sql, scoped.params);
    expect(rows.length).toBeGreaterThan(50);
    expect(rows.some((r) => (r as { audience_top_country_1: string | null }).audience_top_country_1 !== null)).toBe(
      true,
    );
    expect(await t.store.all(unscoped.sql, unscoped.params)).toEqual(rows);
  });
});

describe('export formats, read back by independent readers', () => {
  it('CSV is RFC 4180 with a header, CRLF line ends, and the =1+2 cell neutralised', async () => {
    const { path } = await exportFile('csv');
    const text = readFileSync(path, 'utf8');
    expect(text.split('\r\n')[0]).toBe(FIELDS.join(','));
    const rows = parseCsv(text, { columns: true, record_delimiter: '\r\n' }) as Array<Record<string, string>>;
    const expected = await expectedRows();
    expect(rows[0]?.['display_name']).toBe("'=1+2");
    // CSV has no NULL: an empty cell stands for one (some demo creators have no audience data, so no top country)
    const nullable = (v: string | undefined): string | null => (v === '' || v === undefined ? null : v);
    compareText(
      rows.map((r) => ({
        ...r,
        display_name: nullable(r['display_name']),
        audience_top_country_1: nullable(r['audience_top_country_1']),
      })),
      expected,
    );
  });

  it('JSON is one array and NDJSON one object per line, both matching the store', async () => {
    const expected = await expectedRows();
    const json = JSON.parse(readFileSync((await exportFile('json')).path, 'utf8')) as Array<Record<string, unknown>>;
    compareText(
      json.map((r) => ({ ...r, display_name: r['display_name'] === '=1+2' ? "'=1+2" : r['display_name'] })),
      expected,
    );
    const lines = readFileSync((await exportFile('ndjson')).path, 'utf8')
      .trim()
      .split('\n');
    const ndjson = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    compareText(
      ndjson.map((r) => ({ ...r, display_name: r['display_name'] === '=1+2' ? "'=1+2" : r['display_name'] })),
      expected,
    );
  });

  it('Parquet read back with parquetjs-lite matches the store row by row', async () => {
    const { path } = await exportFile('parquet');
    const reader = await parquet.ParquetReader.openFile(path);
    const cursor = reader.getCursor();
    const rows: Array<Record<string, unknown>> = [];
    for (let r = await cursor.next(); r; r = await cursor.next()) rows.push(r as Record<string, unknown>);
    await reader.close();
    const expected = await expectedRows();
    expect(rows.length).toBe(expected.length);
    rows.forEach((row, i) => {
      const e = expected[i] as Expected;
      expect([row['handle'], row['platform'], row['display_name'] ?? null]).toEqual([
        e.handle,
        e.platform,
        e.display_name,
      ]);
      expect(Number(row['followers'])).toBe(e.followers);
      expect(row['engagement_rate'] ?? null).toBe(e.engagement_rate);
      expect(row['verified']).toBe(e.verified);
      expect((row['updated_at'] as Date).getTime()).toBe(e.updated_at.getTime());
      expect(row['audience_top_country_1'] ?? null).toBe(e.audience_top_country_1);
    });
  });

  it('Arrow IPC stream read back with apache-arrow matches the store row by row', async () => {
    const { path } = await exportFile('arrow');
    const reader = RecordBatchStreamReader.from(readFileSync(path));
    const rows: Array<Record<string, unknown>> = [];
    for (const batch of reader) for (const row of batch) rows.push(row.toJSON() as Record<string, unknown>);
    const expected = await expectedRows();
    expect(rows.length).toBe(expected.length);
    rows.forEach((row, i) => {
      const e = expected[i] as Expected;
      expect([row['handle'], row['platform'], row['display_name']]).toEqual([e.handle, e.platform, e.display_name]);
      expect(row['followers']).toBe(BigInt(e.followers));
      expect(row['engagement_rate']).toBe(e.engagement_rate);
      expect(row['verified']).toBe(e.verified);
      expect(Number(row['updated_at'])).toBe(e.updated_at.getTime());
      expect(row['audience_top_country_1']).toBe(e.audience_top_country_1);
    });
  });
});

/** Content fields, list ones among them, in every format. */
const CONTENT = [
  'handle',
  'hashtags',
  'mentions',
  'brands',
  'sponsored_pct',
  'engagement_rate_sponsored',
  'posts_per_week',
  'last_posted_at',
  'has_contact',
  'linked_platforms',
  'price_post_usd',
];
const LISTS = ['hashtags', 'mentions', 'brands', 'linked_platforms'] as const;
type ContentRow = {
  handle: string;
  hashtags: string[];
  mentions: string[];
  brands: string[];
  linked_platforms: string[];
  sponsored_pct: number | null;
  engagement_rate_sponsored: number | null;
  posts_per_week: number | null;
  last_posted_at: Date | null;
  has_contact: boolean;
  price_post_usd: number | null;
};

async function expectedContent(): Promise<ContentRow[]> {
  return t.store.all<ContentRow>(`SELECT handle, coalesce(hashtags, []) AS hashtags, coalesce(mentions, []) AS mentions,
      coalesce(brands, []) AS brands, coalesce(linked_platforms, []) AS linked_platforms, sponsored_pct, engagement_rate_sponsored,
      posts_per_week, last_posted_at, coalesce(has_contact, false) AS has_contact, price_post_usd
    FROM creators LEFT JOIN creator_content USING (creator_id) WHERE niche = 'beauty' ORDER BY followers DESC, creator_id`);
}

describe('content fields of a creator export', () => {
  beforeAll(async () => {
    // Values a list cell must survive: a comma, a double quote, a formula-leading item, several scripts.
    const beauty = (offset: number): Promise<number> =>
      t.store
        .one<{ id: number }>(`SELECT creator_id AS id FROM creators WHERE niche = 'beauty'
      ORDER BY followers DESC, creator_id LIMIT 1 OFFSET ${offset}`)
        .then((r) => r!.id);
    const [full, empty, underived] = [await beauty(0), await beauty(1), await beauty(2)];
    await t.store.run(
      `UPDATE creators SET sponsored_posts = 2, sponsored_pct = 12.5, engagement_rate_sponsored = 1.25,
        posts_per_week = 3.5, last_posted_at = TIMESTAMP '2026-11-20 08:30:00', has_contact = true WHERE creator_id = ?`,
      [full],
    );
    await setContentLists(t.store, full, {
      hashtags: `['mealprep', 'a,b', 'say "hi"', '=cmd', 'café']`,
      mentions: "['nike', 'zoë']",
      brands: "['@nike', '@glossier']",
      linked_platforms: "['tiktok', 'youtube']",
    });
    // The next one has empty lists (no content row), the one after was never derived (a NULL has_contact exports as false).
    await t.store.run('UPDATE creators SET has_contact = false WHERE creator_id = ?', [empty]);
    await t.store.run('DELETE FROM creator_content WHERE creator_id IN (?, ?)', [empty, underived]);
    await t.store.run('UPDATE creators SET has_contact = NULL WHERE creator_id = ?', [underived]);
    // a price with cents and one without an estimate (the others keep the demo model's)
    await t.store.run('UPDATE creators SET price_post_usd = 1234.56 WHERE creator_id = ?', [full]);
    await t.store.run('UPDATE creators SET price_post_usd = NULL WHERE creator_id = ?', [empty]);
  });

  function compareContent(
    rows: Array<Record<string, unknown>>,
    expected: ContentRow[],
    read: {
      list: (v: unknown) => unknown;
      number: (v: unknown) => number | null;
      time: (v: unknown) => number | null;
      bool: (v: unknown) => boolean;
    },
  ): void {
    expect(rows.length).toBe(expected.length);
    rows.forEach((row, i) => {
      const e = expected[i] as ContentRow;
      expect(row['handle']).toBe(e.handle);
      for (const f of LISTS) expect(read.list(row[f])).toEqual(e[f]);
      expect(read.number(row['sponsored_pct'])).toBe(e.sponsored_pct);
      expect(read.number(row['engagement_rate_sponsored'])).toBe(e.engagement_rate_sponsored);
      expect(read.number(row['posts_per_week'])).toBe(e.posts_per_week);
      expect(read.time(row['last_posted_at'])).toBe(e.last_posted_at?.getTime() ?? null);
      expect(read.bool(row['has_contact'])).toBe(e.has_contact);
      expect(read.number(row['price_post_usd'])).toBe(e.price_post_usd);
    });
    expect(read.list(rows[0]?.['hashtags'])).toEqual(['mealprep', 'a,b', 'say "hi"', '=cmd', 'café']);
  }

  const num = (v: unknown): number | null => (v === null || v === undefined || v === '' ? null : Number(v));
  const iso = (v: unknown): number | null => (v === null || v === undefined || v === '' ? null : Date.parse(String(v)));

  it('CSV keeps each list in one cell as JSON array text', async () => {
    const text = readFileSync((await exportFile('csv', CONTENT)).path, 'utf8');
    const rows = parseCsv(text, { columns: true, record_delimiter: '\r\n' }) as Array<Record<string, string>>;
    expect(rows[0]?.['hashtags']).toBe('["mealprep","a,b","say \\"hi\\"","=cmd","café"]');
    expect(rows[1]?.['brands']).toBe('[]');
    expect(rows[2]?.['brands']).toBe('[]');
    compareContent(rows, await expectedContent(), {
      list: (v) => JSON.parse(String(v)),
      number: num,
      time: iso,
      bool: (v) => v === 'true',
    });
  });

  it('JSON and NDJSON carry lists as arrays', async () => {
    const expected = await expectedContent();
    const read = { list: (v: unknown) => v, number: num, time: iso, bool: (v: unknown) => v as boolean };
    compareContent(
      JSON.parse(readFileSync((await exportFile('json', CONTENT)).path, 'utf8')) as Array<Record<string, unknown>>,
      expected,
      read,
    );
    const lines = readFileSync((await exportFile('ndjson', CONTENT)).path, 'utf8')
      .trim()
      .split('\n');
    compareContent(
      lines.map((l) => JSON.parse(l) as Record<string, unknown>),
      expected,
      read,
    );
  });

  it('Parquet holds lists as LIST<UTF8>, read back by parquetjs-lite', async () => {
    const { path } = await exportFile('parquet', CONTENT);
    const reader = await parquet.ParquetReader.openFile(path);
    const schema = reader.schema.fields as Record<
      string,
      {
        repetitionType: string;
        fields?: Record<string, { repetitionType: string; fields?: Record<string, { originalType: string }> }>;
      }
    >;
    expect(schema['brands']?.fields?.['list']?.repetitionType).toBe('REPEATED');
    expect(schema['brands']?.fields?.['list']?.fields?.['element']?.originalType).toBe('UTF8');
    const cursor = reader.getCursor();
    const rows: Array<Record<string, unknown>> = [];
    for (let r = await cursor.next(); r; r = await cursor.next()) rows.push(r as Record<string, unknown>);
    await reader.close();
    // the three-level LIST shape: {list: [{element}]}, an empty list as {} (a NULL list would be absent)
    const list = (v: unknown): unknown =>
      ((v as { list?: Array<{ element?: string }> }).list ?? []).map((e) => e.element ?? null);
    compareContent(rows, await expectedContent(), {
      list,
      number: (v) => (v === undefined ? null : Number(v)),
      time: (v) => (v === undefined ? null : (v as Date).getTime()),
      bool: (v) => v as boolean,
    });
  });

  it('Arrow holds lists as List<Utf8>, read back by apache-arrow', async () => {
    const { path } = await exportFile('arrow', CONTENT);
    const reader = RecordBatchStreamReader.from(readFileSync(path));
    const rows: Array<Record<string, unknown>> = [];
    for (const batch of reader) {
      expect(String(batch.schema.fields.find((f) => f.name === 'hashtags')?.type)).toBe('List<Utf8>');
      for (const row of batch) rows.push(row.toJSON() as Record<string, unknown>);
    }
    compareContent(rows, await expectedContent(), {
      list: (v) => [...(v as Iterable<string>)],
      number: (v) => (v === null ? null : Number(v)),
      // microseconds since the epoch, read as fractional milliseconds; the store's Date holds whole ones
      time: (v) => (v === null ? null : Math.floor(Number(v))),
      bool: (v) => v as boolean,
    });
  });

  it('never offers contact details or caption words', async () => {
    for (const field of ['email', 'website', 'caption_words', 'contacts']) {
      await expect(
        createExport(t.store, t.state, new PlanCatalogue(t.state), caller, {
          source: 'search',
          filters: { niche: 'beauty' },
          format: 'csv',
          fields: ['handle', field],
        }),
      ).rejects.toMatchObject({ message: expect.stringContaining(field) as unknown as string });
    }
  });
});
