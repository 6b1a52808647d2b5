import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityName } from '../../pipelines/entities/entity.js';
import type { RunRecord } from '../../pipelines/engine/pipeline.js';
import { CREATOR_DIFF_FIELDS } from '../../pipelines/engine/creator-events.js';
import { runPipeline } from '../../pipelines/engine/runner.js';
import type { FileFormat } from '../../pipelines/engine/stage.js';
import { pipelineForEntity } from '../../pipelines/registry.js';
import { filesSource } from '../../pipelines/sources/files.source.js';
import { CAMPAIGN_COLUMNS, CREATOR_COLUMNS, campaignRow, creatorRow, writeCsv } from '../fixtures/pipelines/files.js';
import { creatorAt } from '../helpers/creators.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let t: TestStore;

beforeAll(async () => {
  t = await createTestStore({ creators: 2000 });
});
afterAll(async () => {
  await t.cleanup();
});

async function ingest(file: string, entity: EntityName, format: FileFormat = 'csv'): Promise<RunRecord> {
  const outcome = await runPipeline({ store: t.store, config: t.config }, pipelineForEntity(entity), {
    source: filesSource([{ entity, file, format }]),
  });
  const run = outcome.runs[0];
  if (!run) throw new Error('no run');
  return run;
}

async function count(sql: string, params: Array<string | number> = []): Promise<number> {
  return (await t.store.one<{ n: number }>(sql, params))?.n ?? 0;
}

/** A run's quarantined faults by line; `quarantine_id` keeps a line's faults in the order they were found. */
async function quarantined(
  runId: string,
  order: 'line' | 'quarantine_id' = 'line',
): Promise<Array<{ line: number; column_name: string | null; reason: string }>> {
  return t.store.all(`SELECT line, column_name, reason FROM quarantine WHERE run_id = ? ORDER BY ${order}`, [runId]);
}

/** A fingerprint of every source table, to show a failed run left the store as it was. */
async function storeFingerprint(): Promise<string> {
  const row = await t.store.one(`SELECT
    (SELECT count(*) FROM creators) AS creators, (SELECT sum(hash(creator_id, followers, updated_at, display_name)) FROM creators) AS h,
    (SELECT count(*) FROM posts) AS posts, (SELECT count(*) FROM follower_history) AS history,
    (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM quarantine) AS quarantine,
    (SELECT count(*) FROM ingested_files) AS files`);
  return JSON.stringify(row);
}

describe('bad rows', () => {
  it("quarantines a CSV record with more fields than the header past the reader's sample, and keeps the lines of the records after it", async () => {
    // DuckDB sniffs a CSV's shape from its first 20,480 rows: extra fields after them used to be dropped silently
    const rows = Array.from({ length: 22_000 }, (_, i) =>
      creatorRow({ handle: `@wide_${i}`, followers: i === 21_010 ? 'not-a-number' : 1000 + i }),
    );
    const file = writeCsv(t.dir, 'creators-late-extra-field.csv', CREATOR_COLUMNS, rows);
    const lines = readFileSync(file, 'utf8').split('\n');
    const extra = 21_002; // line of @wide_21000 (header on line 1); @wide_21010, with a bad number, is 10 lines on
    lines[extra - 1] = `${lines[extra - 1]},surplus`;
    writeFileSync(file, lines.join('\n'));
    const run = await ingest(file, 'creators');
    expect(run).toMatchObject({ status: 'succeeded', rows_read: 22_000, rows_rejected: 2, rows_loaded: 21_998 });
    expect(await quarantined(run.run_id)).toEqual([
      { line: extra, column_name: null, reason: 'more fields than the header names' },
      { line: extra + 10, column_name: 'followers', reason: 'not a valid bigint' },
    ]);
    // stored in file order, as the rejects listing answers them
    expect(
      (
        await t.store.all<{ line: number }>('SELECT line FROM quarantine WHERE run_id = ? ORDER BY quarantine_id', [
          run.run_id,
        ])
      ).map((r) => Number(r.line)),
    ).toEqual([extra, extra + 10]);
    const raw = await t.store.one<{ raw: string }>(
      'SELECT raw::VARCHAR AS raw FROM quarantine WHERE run_id = ? AND line = ?',
      [run.run_id, extra],
    );
    expect(JSON.parse(raw?.raw ?? '{}')).toEqual({
      csv_line: expect.stringContaining('@wide_21000') as unknown as string,
    });
    expect(await count(`SELECT count(*) AS n FROM creators WHERE handle IN ('@wide_21000', '@wide_21010')`)).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM creators WHERE handle = '@wide_21011' AND followers = 22011`)).toBe(
      1,
    );
  });

  it('keeps the lines of the records after several refused records in a row', async () => {
    const rows = Array.from({ length: 21_000 }, (_, i) =>
      creatorRow({ handle: `@run_${i}`, followers: i === 20_700 ? 'x' : 1000 + i }),
    );
    const file = writeCsv(t.dir, 'creators-late-extra-fields.csv', CREATOR_COLUMNS, rows);
    const lines = readFileSync(file, 'utf8').split('\n');
    for (const line of [20_602, 20_603, 20_650]) lines[line - 1] = `${lines[line - 1]},surplus`; // @run_20600, 20601, 20648
    writeFileSync(file, lines.join('\n'));
    const run = await ingest(file, 'creators');
    expect(run).toMatchObject({ rows_read: 21_000, rows_rejected: 4 });
    expect((await quarantined(run.run_id)).map((q) => q.line)).toEqual([20_602, 20_603, 20_650, 20_702]);
  });

  it('quarantines each kind of bad creator row with its line, column and reason while the good rows load', async () => {
    const rows = [
      creatorRow({ handle: 'Good_One', country: 'de', platform: 'TikTok' }), // line 2: good, normalised
      creatorRow({ handle: '@bad_platform', platform: 'myspace' }),
      creatorRow({ handle: 'has spaces!' }),
      creatorRow({ handle: '@bad_niche', niche: 'astrology' }),
      creatorRow({ handle: '@bad_country', country: 'XX' }),
      creatorRow({ handle: '@bad_language', language: 'english' }),
      creatorRow({ handle: '@negative', followers: -3 }),
      creatorRow({ handle: '@not_a_number', followers: 'lots' }),
      creatorRow({ handle: '@no_niche', niche: '' }),
      creatorRow({ handle: '@bad_time', updated_at: 'yesterday' }),
      creatorRow({ handle: '@future', updated_at: '2999-01-01T00:00:00Z' }),
      creatorRow({ handle: '@dup', followers: 1 }), // line 13: older duplicate
      creatorRow({ handle: '@dup', followers: 2, updated_at: '2026-11-21T13:00:00Z' }), // line 14: kept
      creatorRow({ handle: '@good_two', country: '' }), // line 15: good, optional country empty
    ];
    const file = writeCsv(t.dir, 'creators-bad-rows.csv', CREATOR_COLUMNS, rows);
    writeFileSync(
      file,
      `${readFileSync(file, 'utf8')}instagram,@too_many,X,,tech,US,,en,5,,,,2026-11-21T00:00:00Z,surplus\n`,
    );
    const run = await ingest(file, 'creators');
    expect(run).toMatchObject({
      status: 'succeeded',
      rows_read: 15,
      rows_rejected: 12,
      rows_loaded: 3,
      rows_changed: 3,
    });
    expect(await quarantined(run.run_id)).toEqual([
      { line: 3, column_name: 'platform', reason: 'not a known platform' },
      { line: 4, column_name: 'handle', reason: 'not a valid handle' },
      { line: 5, column_name: 'niche', reason: 'not a known niche' },
      { line: 6, column_name: 'country', reason: 'not a known ISO 3166-1 alpha-2 country code' },
      { line: 7, column_name: 'language', reason: 'not a known ISO 639-1 language code' },
      { line: 8, column_name: 'followers', reason: 'must be 0 or more' },
      { line: 9, column_name: 'followers', reason: 'not a valid bigint' },
      { line: 10, column_name: 'niche', reason: 'is required' },
      { line: 11, column_name: 'updated_at', reason: 'not a valid timestamp' },
      { line: 12, column_name: 'updated_at', reason: 'is in the future' },
      { line: 13, column_name: null, reason: 'duplicate key in this file; line 14 is kept' },
      { line: 16, column_name: null, reason: 'more fields than the header names' },
    ]);
    const raw = await t.store.one<{ raw: string }>(`SELECT raw FROM quarantine WHERE run_id = ? AND line = 3`, [
      run.run_id,
    ]);
    expect(JSON.parse(raw?.raw ?? '{}')).toMatchObject({ platform: 'myspace', handle: '@bad_platform' });
    const good = await t.store.all(
      'SELECT platform, handle, country, followers FROM creators WHERE handle IN (?, ?, ?) ORDER BY handle',
      ['@good_one', '@good_two', '@dup'],
    );
    expect(good).toEqual([
      { platform: 'instagram', handle: '@dup', country: 'US', followers: 2 },
      { platform: 'tiktok', handle: '@good_one', country: 'DE', followers: 12000 },
      { platform: 'instagram', handle: '@good_two', country: null, followers: 12000 },
    ]);
  });

  it('quarantines child rows naming unknown creators or campaigns, bad keys and audience shares over 100.5, and keeps shares to hundredths', async () => {
    const a = await creatorAt(t.store, 10);
    const b = await creatorAt(t.store, 11);
    const history = writeCsv(
      t.dir,
      'follower_history-x.csv',
      ['platform', 'handle', 'date', 'followers', 'following'],
      [
        { platform: a.platform, handle: a.handle, date: '2026-11-22', followers: a.followers + 10, following: 5 },
        { platform: 'instagram', handle: '@nobody_here', date: '2026-11-22', followers: 10 },
      ],
    );
    const h = await ingest(history, 'follower_history');
    expect(h).toMatchObject({ status: 'succeeded', rows_loaded: 1, rows_rejected: 1 });
    expect(await quarantined(h.run_id)).toEqual([
      { line: 3, column_name: 'handle', reason: 'unknown creator instagram @nobody_here' },
    ]);
    expect(
      await count('SELECT count(*) AS n FROM follower_history WHERE creator_id = ? AND date = ?::DATE', [
        a.creator_id,
        '2026-11-22',
      ]),
    ).toBe(1);

    const audience = writeCsv(
      t.dir,
      'audience-x.csv',
      ['platform', 'handle', 'dimension', 'key', 'pct', 'as_of'],
      [
        {
          platform: a.platform,
          handle: a.handle,
          dimension: 'gender',
          key: 'female',
          pct: 60,
          as_of: '2026-11-22T00:00:00Z',
        },
        {
          platform: a.platform,
          handle: a.handle,
          dimension: 'gender',
          key: 'male',
          // kept to hundredths
          pct: 39.004,
          as_of: '2026-11-22T00:00:00Z',
        },
        {
          platform: a.platform,
          handle: a.handle,
          dimension: 'gender',
          key: 'robot',
          pct: 1,
          as_of: '2026-11-22T00:00:00Z',
        },
        {
          platform: a.platform,
          handle: a.handle,
          dimension: 'age',
          key: '18-24',
          pct: 140,
          as_of: '2026-11-22T00:00:00Z',
        },
        {
          platform: b.platform,
          handle: b.handle,
          dimension: 'country',
          key: 'us',
          pct: 70,
          as_of: '2026-11-22T00:00:00Z',
        },
        {
          platform: b.platform,
          handle: b.handle,
          dimension: 'country',
          key: 'GB',
          pct: 31,
          as_of: '2026-11-22T00:00:00Z',
        },
        {
          platform: b.platform,
          handle: b.handle,
          dimension: 'language',
          key: 'xx',
          pct: 10,
          as_of: '2026-11-22T00:00:00Z',
        },
      ],
    );
    const au = await ingest(audience, 'audience');
    expect(au).toMatchObject({ status: 'succeeded', rows_loaded: 2, rows_rejected: 5 });
    expect(await quarantined(au.run_id)).toEqual([
      { line: 4, column_name: 'key', reason: 'gender must be female, male or other' },
      { line: 5, column_name: 'pct', reason: 'must be between 0 and 100' },
      { line: 6, column_name: 'pct', reason: 'the country shares add up to 101 (over 100.5)' },
      { line: 7, column_name: 'pct', reason: 'the country shares add up to 101 (over 100.5)' },
      { line: 8, column_name: 'key', reason: 'not an ISO 639-1 language code' },
    ]);
    expect(
      await t.store.all(`SELECT key, pct FROM audience WHERE creator_id = ? AND dimension = 'gender' ORDER BY key`, [
        a.creator_id,
      ]),
    ).toEqual([
      { key: 'female', pct: 60 },
      { key: 'male', pct: 39 },
    ]);

    const posts = writeCsv(
      t.dir,
      'posts-x.csv',
      ['platform', 'handle', 'post_id', 'posted_at', 'type', 'likes', 'comments', 'views', 'shares', 'sponsored'],
      [
        {
          platform: a.platform,
          handle: a.handle,
          post_id: 'p-new-1',
          posted_at: '2026-11-21T10:00:00Z',
          type: 'Reel',
          likes: 100,
          comments: 5,
        },
        {
          platform: a.platform,
          handle: a.handle,
          post_id: 'p-new-2',
          posted_at: '2026-11-21T10:00:00Z',
          type: 'hologram',
          likes: 100,
          comments: 5,
        },
      ],
    );
    const p = await ingest(posts, 'posts');
    expect(p).toMatchObject({ status: 'succeeded', rows_loaded: 1, rows_rejected: 1 });
    expect(await quarantined(p.run_id)).toEqual([{ line: 3, column_name: 'type', reason: 'not a known post type' }]);

    const metrics = writeCsv(
      t.dir,
      'campaign_metrics-x.csv',
      ['campaign_id', 'date', 'platform', 'handle', 'impressions'],
      [
        {
          campaign_id: 'cmp_does_not_exist',
          date: '2026-11-21',
          platform: a.platform,
          handle: a.handle,
          impressions: 5,
        },
      ],
    );
    const m = await ingest(metrics, 'campaign_metrics');
    expect(await quarantined(m.run_id)).toEqual([
      { line: 2, column_name: 'campaign_id', reason: 'unknown campaign cmp_does_not_exist' },
    ]);

    const campaigns = writeCsv(t.dir, 'campaigns-x.csv', CAMPAIGN_COLUMNS, [
      campaignRow({ campaign_id: 'cmp_new_one', account_id: t.demoAccountId, name: 'New', status: 'Active' }),
      campaignRow({ campaign_id: 'cmp_orphan', account_id: 'acct_nobody', name: 'Orphan', status: 'active' }),
      campaignRow({ campaign_id: 'cmp_bad_status', account_id: t.demoAccountId, name: 'Bad', status: 'dreaming' }),
    ]);
    const c = await ingest(campaigns, 'campaigns');
    expect(c).toMatchObject({ rows_loaded: 1, rows_rejected: 2 });
    expect(await quarantined(c.run_id)).toEqual([
      { line: 3, column_name: 'account_id', reason: 'unknown account acct_nobody' },
      { line: 4, column_name: 'status', reason: 'not a known campaign status' },
    ]);
    expect(
      await count(`SELECT count(*) AS n FROM campaigns WHERE campaign_id = 'cmp_new_one' AND status = 'active'`),
    ).toBe(1);
  });
});

describe('every fault of a row', () => {
  it('quarantines a row once per fault, and rows_rejected counts the row once', async () => {
    const file = writeCsv(t.dir, 'creators-many-faults.csv', CREATOR_COLUMNS, [
      creatorRow({ handle: '@faults_ok' }),
      creatorRow({ handle: '@faults_three', niche: 'astrology', followers: 'lots', updated_at: '' }),
      creatorRow({ handle: '@faults_one', country: 'XX' }),
    ]);
    const run = await ingest(file, 'creators');
    expect(run).toMatchObject({ status: 'succeeded', rows_read: 3, rows_loaded: 1, rows_rejected: 2 });
    expect(await quarantined(run.run_id, 'quarantine_id')).toEqual([
      { line: 3, column_name: 'niche', reason: 'not a known niche' },
      { line: 3, column_name: 'followers', reason: 'not a valid bigint' },
      { line: 3, column_name: 'updated_at', reason: 'is required' },
      { line: 4, column_name: 'country', reason: 'not a known ISO 3166-1 alpha-2 country code' },
    ]);
  });

  it('tells a row naming an unknown campaign so even when another value is bad, but not a bad handle as an unknown creator', async () => {
    const a = await creatorAt(t.store, 20);
    const metrics = writeCsv(
      t.dir,
      'campaign_metrics-faults.csv',
      ['campaign_id', 'date', 'platform', 'handle', 'impressions'],
      [
        { campaign_id: 'cmp_nowhere', date: '2026-11-21', platform: a.platform, handle: a.handle, impressions: -5 },
        {
          campaign_id: 'cmp_nowhere',
          date: '2026-11-21',
          platform: a.platform,
          handle: 'not a handle!',
          impressions: 5,
        },
      ],
    );
    const run = await ingest(metrics, 'campaign_metrics');
    expect(run).toMatchObject({ rows_rejected: 2 });
    expect(await quarantined(run.run_id, 'quarantine_id')).toEqual([
      { line: 2, column_name: 'impressions', reason: 'must be 0 or more' },
      { line: 2, column_name: 'campaign_id', reason: 'unknown campaign cmp_nowhere' },
      { line: 3, column_name: 'handle', reason: 'not a valid handle' },
      { line: 3, column_name: 'campaign_id', reason: 'unknown campaign cmp_nowhere' },
    ]);
  });
});

describe('unknown columns', () => {
  it('reads past a CSV column the entity does not have, loads the rows and warns on the run', async () => {
    const file = writeCsv(
      t.dir,
      'creators-extra-col.csv',
      [...CREATOR_COLUMNS, 'shoe_size'],
      [{ ...creatorRow({ handle: '@extra_col', followers: 777 }), shoe_size: 44 }],
    );
    const run = await ingest(file, 'creators');
    expect(run).toMatchObject({
      status: 'succeeded',
      rows_loaded: 1,
      rows_rejected: 0,
      warnings: [
        'creators-extra-col.csv: unknown column(s) shoe_size ignored (creators has no such column; docs/data-formats.md)',
      ],
    });
    expect(await t.store.one(`SELECT followers FROM creators WHERE handle = '@extra_col'`)).toEqual({ followers: 777 });
    expect(
      (await t.store.one<{ w: string }>('SELECT warnings AS w FROM pipeline_runs WHERE run_id = ?', [run.run_id]))?.w,
    ).toContain('shoe_size');
  });

  it('reads past unknown NDJSON keys and Parquet columns alike', async () => {
    const nd = join(t.dir, 'creators-extra-key.ndjson');
    writeFileSync(nd, `${JSON.stringify({ ...creatorRow({ handle: '@extra_key' }), mood: 'sunny' })}\n`);
    const pq = join(t.dir, 'creators-extra-pq.parquet');
    await t.store.run(`COPY (SELECT 'instagram' AS platform, '@extra_pq' AS handle, 'tech' AS niche, 5::BIGINT AS followers,
      TIMESTAMP '2026-11-20 00:00:00' AS updated_at, 'x' AS internal_note) TO '${pq}' (FORMAT parquet)`);
    expect(await ingest(nd, 'creators', 'ndjson')).toMatchObject({
      status: 'succeeded',
      rows_loaded: 1,
      warnings: [expect.stringContaining('mood')],
    });
    expect(await ingest(pq, 'creators', 'parquet')).toMatchObject({
      status: 'succeeded',
      rows_loaded: 1,
      warnings: [expect.stringContaining('internal_note')],
    });
    expect(await count(`SELECT count(*) AS n FROM creators WHERE handle IN ('@extra_key', '@extra_pq')`)).toBe(2);
  });

  it('quarantines bad Parquet rows (read in place, not copied) with their record number and every column as read', async () => {
    const pq = join(t.dir, 'creators-bad-rows.parquet');
    await t.store.run(`COPY (SELECT 'instagram' AS platform, '@pq_bad' || i AS handle, CASE WHEN i = 3 THEN 'knitting' ELSE 'tech' END AS niche,
      (CASE WHEN i = 5 THEN -1 ELSE 1000 + i END)::BIGINT AS followers, TIMESTAMP '2026-11-20 00:00:00' AS updated_at, 'n' || i AS internal_note
      FROM range(1, 7) t(i) ORDER BY i) TO '${pq}' (FORMAT parquet)`);
    const run = await ingest(pq, 'creators', 'parquet');
    expect(run).toMatchObject({ status: 'succeeded', rows_read: 6, rows_loaded: 4, rows_rejected: 2 });
    expect(await quarantined(run.run_id)).toEqual([
      { line: 3, column_name: 'niche', reason: 'not a known niche' },
      { line: 5, column_name: 'followers', reason: 'must be 0 or more' },
    ]);
    const raw = await t.store.all<{ raw: string }>(
      'SELECT raw::VARCHAR AS raw FROM quarantine WHERE run_id = ? ORDER BY line',
      [run.run_id],
    );
    expect(raw.map((r) => JSON.parse(r.raw))).toEqual([
      {
        platform: 'instagram',
        handle: '@pq_bad3',
        niche: 'knitting',
        followers: 1003,
        updated_at: '2026-11-20 00:00:00',
        internal_note: 'n3',
      },
      {
        platform: 'instagram',
        handle: '@pq_bad5',
        niche: 'tech',
        followers: -1,
        updated_at: '2026-11-20 00:00:00',
        internal_note: 'n5',
      },
    ]);
  });
});

describe('unreadable files', () => {
  it('fails a CSV that lacks a required column (naming it and any unknown one) and loads nothing', async () => {
    const before = await storeFingerprint();
    const run = await ingest(join(import.meta.dirname, '../fixtures/pipelines/creators-wrong-header.csv'), 'creators');
    expect(run.status).toBe('failed');
    expect(run.error).toContain('unknown column(s) user_name');
    expect(run.error).toContain('missing column(s) handle');
    expect(await storeFingerprint()).toBe(before);
    expect(
      await count(`SELECT count(*) AS n FROM pipeline_runs WHERE run_id = ? AND status = 'failed'`, [run.run_id]),
    ).toBe(1);
  });

  it('fails a truncated Parquet file and loads nothing', async () => {
    const file = join(t.dir, 'creators-truncated.parquet');
    await t.store.run(`COPY (SELECT 'instagram' AS platform, '@trunc' || i AS handle, 'tech' AS niche, 1000 + i AS followers,
      TIMESTAMP '2026-11-20 00:00:00' AS updated_at FROM range(5000) t(i)) TO '${file}' (FORMAT parquet)`);
    truncateSync(file, Math.floor(statSync(file).size / 2));
    const before = await storeFingerprint();
    const run = await ingest(file, 'creators', 'parquet');
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/cannot read parquet file/);
    expect(await storeFingerprint()).toBe(before);
  });

  it('fails a Parquet file whose footer reads but whose data is damaged, and loads nothing', async () => {
    const file = join(t.dir, 'creators-damaged.parquet');
    await t.store.run(`COPY (SELECT 'instagram' AS platform, '@damaged' || i AS handle, 'tech' AS niche, 1000 + i AS followers,
      TIMESTAMP '2026-11-20 00:00:00' AS updated_at FROM range(5000) t(i)) TO '${file}' (FORMAT parquet, COMPRESSION uncompressed)`);
    const bytes = readFileSync(file);
    bytes.fill(0xff, 64, Math.floor(bytes.length / 2)); // the data pages, not the footer at the end
    writeFileSync(file, bytes);
    const before = await storeFingerprint();
    const run = await ingest(file, 'creators', 'parquet');
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/cannot read parquet file/);
    expect(await storeFingerprint()).toBe(before);
  });
});

describe('merging', () => {
  it('loads the same file a second time as a no-op with no events', async () => {
    const file = writeCsv(t.dir, 'creators-twice.csv', CREATOR_COLUMNS, [
      creatorRow({ handle: '@twice', followers: 777 }),
    ]);
    const first = await ingest(file, 'creators');
    expect(first).toMatchObject({ status: 'succeeded', rows_changed: 1 });
    const before = await storeFingerprint();
    const second = await ingest(file, 'creators');
    expect(second).toMatchObject({ status: 'skipped', rows_changed: 0, events_emitted: 0 });
    expect(second.error).toContain(first.run_id);
    expect(await storeFingerprint()).toBe(before);
  });

  it('rows that restate what the store holds change nothing and emit nothing, even from a new file', async () => {
    const c = await creatorAt(t.store, 40);
    const cols = ['platform', 'handle', 'post_id', 'posted_at', 'type', 'likes', 'comments'];
    const row = {
      platform: c.platform,
      handle: c.handle,
      post_id: 'restated-1',
      posted_at: '2026-11-20T09:00:00Z',
      type: 'video',
      likes: 50,
      comments: 2,
    };
    expect((await ingest(writeCsv(t.dir, 'posts-restate-a.csv', cols, [row]), 'posts')).rows_changed).toBe(1);
    const events = await count('SELECT count(*) AS n FROM events');
    const again = await ingest(writeCsv(t.dir, 'posts-restate-b.csv', [...cols].reverse(), [row]), 'posts');
    expect(again).toMatchObject({ status: 'succeeded', rows_loaded: 1, rows_changed: 0, events_emitted: 0 });
    expect(await count('SELECT count(*) AS n FROM events')).toBe(events);
  });

  it('numbers new creators after the largest id, without gaps, even among rejected and existing rows', async () => {
    const max = await count('SELECT max(creator_id) AS n FROM creators');
    const known = await creatorAt(t.store, 60);
    const file = writeCsv(t.dir, 'creators-ids.csv', CREATOR_COLUMNS, [
      creatorRow({ handle: '@ids_a' }),
      creatorRow({ handle: '@ids_bad', niche: 'x' }),
      creatorRow({ platform: known.platform, handle: known.handle, updated_at: '2026-11-21T21:00:00Z' }),
      creatorRow({ handle: '@ids_b' }),
    ]);
    await ingest(file, 'creators');
    const ids = (
      await t.store.all<{ creator_id: number }>(
        `SELECT creator_id FROM creators WHERE handle IN ('@ids_a', '@ids_b') ORDER BY 1`,
      )
    ).map((r) => r.creator_id);
    expect(ids).toEqual([max + 1, max + 2]);
  });

  it('a column the file does not have keeps its stored value', async () => {
    const c = await creatorAt(t.store, 50);
    await t.store.run(`UPDATE creators SET verified = true, bio = 'kept bio' WHERE creator_id = ?`, [c.creator_id]);
    const file = writeCsv(
      t.dir,
      'creators-partial.csv',
      ['platform', 'handle', 'niche', 'followers', 'updated_at'],
      [
        {
          platform: c.platform,
          handle: c.handle,
          niche: 'travel',
          followers: 31337,
          updated_at: '2026-11-21T22:00:00Z',
        },
      ],
    );
    expect((await ingest(file, 'creators')).rows_changed).toBe(1);
    expect(
      await t.store.one('SELECT niche, followers, verified, bio FROM creators WHERE creator_id = ?', [c.creator_id]),
    ).toEqual({ niche: 'travel', followers: 31337, verified: true, bio: 'kept bio' });
  });

  it('ignores an update older than the stored row, and counts it as stale in the run', async () => {
    const c = await creatorAt(t.store, 20);
    const eventsBefore = await count('SELECT count(*) AS n FROM events WHERE creator_id = ?', [c.creator_id]);
    const stored = await t.store.one<{ display_name: string }>(
      'SELECT display_name FROM creators WHERE creator_id = ?',
      [c.creator_id],
    );
    const old = writeCsv(t.dir, 'creators-old.csv', CREATOR_COLUMNS, [
      creatorRow({
        platform: c.platform,
        handle: c.handle,
        followers: c.followers + 5000,
        display_name: 'Stale Name',
        updated_at: '2020-01-01T00:00:00Z',
      }),
    ]);
    const run = await ingest(old, 'creators');
    expect(run).toMatchObject({
      status: 'succeeded',
      rows_loaded: 1,
      rows_changed: 0,
      rows_stale: 1,
      events_emitted: 0,
    });
    expect(
      await t.store.one('SELECT followers, display_name FROM creators WHERE creator_id = ?', [c.creator_id]),
    ).toEqual({ followers: c.followers, display_name: stored?.display_name });
    expect(await count('SELECT count(*) AS n FROM events WHERE creator_id = ?', [c.creator_id])).toBe(eventsBefore);
  });

  it('emits creator.updated events that match the changes in the store exactly, in the same commit', async () => {
    const creators = await Promise.all([30, 31, 32].map((i) => creatorAt(t.store, i)));
    const fields: string[] = [...CREATOR_DIFF_FIELDS];
    // the content lists are the creator's creator_content row (none: empty)
    const lists = new Set(['hashtags', 'mentions', 'brands', 'linked_platforms']);
    const snapshot = async (id: number) =>
      t.store.one(
        `SELECT ${fields.map((f) => (lists.has(f) ? `coalesce(k.${f}, []) AS ${f}` : `c.${f}`)).join(', ')},
      c.platform, c.handle FROM creators c LEFT JOIN creator_content k ON k.creator_id = c.creator_id WHERE c.creator_id = ?`,
        [id],
      );
    const before = await Promise.all(creators.map((c) => snapshot(c.creator_id)));
    const rows = creators.map(
      (_c, i) =>
        ({ ...before[i], updated_at: '2026-11-21T23:00:00Z' }) as Record<string, string | number | boolean | null>,
    );
    rows[0] = { ...rows[0], followers: Number(rows[0]?.['followers']) * 2 };
    rows[1] = { ...rows[1], display_name: 'Renamed Creator', verified: true };
    const file = writeCsv(t.dir, 'creators-changes.csv', CREATOR_COLUMNS, rows); // the third row changes nothing but its time
    const run = await ingest(file, 'creators');
    expect(run).toMatchObject({ status: 'succeeded', rows_changed: 2, events_emitted: 2 });
    const events = await t.store.all<{
      event_id: string;
      creator_id: number;
      account_id: string | null;
      payload: string;
    }>(
      `SELECT event_id, creator_id, account_id, payload FROM events WHERE creator_id IN (?, ?, ?) AND type = 'creator.updated'
       AND fanned_out_at IS NULL ORDER BY seq DESC LIMIT 2`,
      creators.map((c) => c.creator_id),
    );
    for (const [i, c] of creators.slice(0, 2).entries()) {
      const after = await snapshot(c.creator_id);
      const expected: Record<string, { from: unknown; to: unknown }> = {};
      for (const f of fields) {
        if (JSON.stringify(before[i]?.[f]) !== JSON.stringify(after?.[f]))
          expected[f] = { from: before[i]?.[f], to: after?.[f] };
      }
      const event = events.find((e) => e.creator_id === c.creator_id);
      expect(event?.event_id).toMatch(/^evt_/);
      expect(event?.account_id).toBeNull();
      const payload = JSON.parse(event?.payload ?? '{}') as {
        platform: string;
        handle: string;
        changes: unknown;
        creator: Record<string, unknown>;
      };
      expect(payload.changes).toEqual(expected);
      expect(payload).toMatchObject({ platform: c.platform, handle: c.handle });
      expect(payload.creator).toMatchObject({
        handle: c.handle,
        followers: after?.['followers'],
        display_name: after?.['display_name'],
      });
    }
    expect(
      Object.keys(
        (
          JSON.parse(events.find((e) => e.creator_id === creators[1]?.creator_id)?.payload ?? '{}') as {
            changes: object;
          }
        ).changes,
      ),
    ).toEqual(expect.arrayContaining(['display_name', 'verified']));
  });

  it('emits campaign.metrics_updated to the campaign account with the changed totals', async () => {
    const target = await t.store.one<{ campaign_id: string; account_id: string; platform: string; handle: string }>(
      `SELECT cc.campaign_id, cp.account_id, c.platform, c.handle FROM campaign_creators cc JOIN campaigns cp USING (campaign_id)
       JOIN creators c USING (creator_id) ORDER BY cc.campaign_id, c.creator_id LIMIT 1`,
    );
    if (!target) throw new Error('no campaign');
    const before = await t.store.one<{ impressions: number }>(
      'SELECT coalesce(sum(impressions), 0) AS impressions FROM campaign_metrics WHERE campaign_id = ?',
      [target.campaign_id],
    );
    const file = writeCsv(
      t.dir,
      'campaign_metrics-new.csv',
      ['campaign_id', 'date', 'platform', 'handle', 'impressions', 'clicks', 'spend'],
      [
        {
          campaign_id: target.campaign_id,
          date: '2026-11-22',
          platform: target.platform,
          handle: target.handle,
          impressions: 1000,
          clicks: 10,
          spend: 9.5,
        },
      ],
    );
    const run = await ingest(file, 'campaign_metrics');
    expect(run).toMatchObject({ status: 'succeeded', rows_changed: 1, events_emitted: 1 });
    const event = await t.store.one<{ account_id: string; campaign_id: string; payload: string }>(
      `SELECT account_id, campaign_id, payload FROM events WHERE type = 'campaign.metrics_updated' ORDER BY seq DESC LIMIT 1`,
    );
    expect(event).toMatchObject({ account_id: target.account_id, campaign_id: target.campaign_id });
    const payload = JSON.parse(event?.payload ?? '{}') as {
      campaign_id: string;
      changes: Record<string, { from: number; to: number }>;
      totals: Record<string, number>;
    };
    expect(payload.campaign_id).toBe(target.campaign_id);
    expect(payload.changes['impressions']).toEqual({
      from: before?.impressions,
      to: (before?.impressions ?? 0) + 1000,
    });
    expect(payload.totals['impressions']).toBe((before?.impressions ?? 0) + 1000);
    expect(Object.keys(payload.totals)).toEqual(expect.arrayContaining(['ctr', 'cpm', 'roas', 'engagement_rate']));
  });
});

describe('formats', () => {
  it('normalises what it accepts: handle case and @, code case, UTC offsets, boolean spellings', async () => {
    const file = writeCsv(t.dir, 'creators-normalise.csv', CREATOR_COLUMNS, [
      creatorRow({
        handle: '@Mixed.Case_Name',
        platform: ' YouTube ',
        niche: 'TECH',
        country: 'gb',
        language: 'EN',
        verified: ' TRUE ',
        updated_at: '2026-11-21T10:00:00+02:00',
      }),
    ]);
    expect((await ingest(file, 'creators')).rows_loaded).toBe(1);
    expect(
      await t.store.one(`SELECT platform, handle, niche, country, language, verified, strftime(updated_at, '%H:%M') AS at
      FROM creators WHERE handle = '@mixed.case_name'`),
    ).toEqual({
      platform: 'youtube',
      handle: '@mixed.case_name',
      niche: 'tech',
      country: 'GB',
      language: 'en',
      verified: true,
      at: '08:00',
    });
  });

  it('reads a timestamp without offset as UTC even after a row that names a zone, in every spelling it accepts', async () => {
    // DuckDB's zone-aware cast carried a zone name on to the zone-less rows after it in the same vector.
    const stamps: Array<[string, string]> = [
      ['2026-11-21 10:00:00 America/New_York', '2026-11-21 15:00:00'],
      ['2026-11-21 10:00:00.5', '2026-11-21 10:00:00.5'],
      ['2026-11-21 10:00:00 Europe/Paris', '2026-11-21 09:00:00'],
      ['2026-11-21 24:00:00', '2026-11-22 00:00:00'],
      ['2026-11-21 10:00:00-05:00', '2026-11-21 15:00:00'],
      [' 2026-11-21T10:00:00Z ', '2026-11-21 10:00:00'],
      ['2026-11-21 10:00:00+0200', '2026-11-21 08:00:00'],
      ['2026-11-21', '2026-11-21 00:00:00'],
    ];
    const file = writeCsv(
      t.dir,
      'creators-zones.csv',
      CREATOR_COLUMNS,
      stamps.map(([at], i) => creatorRow({ handle: `@zone_${i}`, updated_at: at })),
    );
    expect((await ingest(file, 'creators')).rows_loaded).toBe(stamps.length);
    const rows = await t.store.all<{ handle: string; at: string }>(
      `SELECT handle, updated_at::VARCHAR AS at FROM creators WHERE handle LIKE '@zone_%'`,
    );
    expect(Object.fromEntries(rows.map((r) => [r.handle, r.at]))).toEqual(
      Object.fromEntries(stamps.map(([, utc], i) => [`@zone_${i}`, utc])),
    );
  });

  it('loads the same rows from NDJSON, a JSON array and Parquet', async () => {
    const rows = ['nd', 'arr', 'pq'].map((k) => creatorRow({ handle: `@format_${k}`, followers: 4242 }));
    const nd = join(t.dir, 'creators-f.ndjson');
    writeFileSync(nd, `${JSON.stringify(rows[0])}\n`);
    const arr = join(t.dir, 'creators-f.json');
    writeFileSync(arr, JSON.stringify([rows[1]]));
    const csv = writeCsv(t.dir, 'creators-pq-src.csv', CREATOR_COLUMNS, [rows[2] ?? {}]);
    const pq = join(t.dir, 'creators-f.parquet');
    await t.store.run(
      `COPY (SELECT * REPLACE (followers::BIGINT AS followers) FROM read_csv('${csv}')) TO '${pq}' (FORMAT parquet)`,
    );
    expect((await ingest(nd, 'creators', 'ndjson')).rows_changed).toBe(1);
    expect((await ingest(arr, 'creators', 'json')).rows_changed).toBe(1);
    expect((await ingest(pq, 'creators', 'parquet')).rows_changed).toBe(1);
    expect(await count(`SELECT count(*) AS n FROM creators WHERE handle LIKE '@format_%' AND followers = 4242`)).toBe(
      3,
    );
  });
});
