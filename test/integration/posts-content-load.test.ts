import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlTimestamp } from '../../data/sql.js';
import type { EntityName } from '../../pipelines/entities/entity.js';
import type { RunRecord } from '../../pipelines/engine/pipeline.js';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { pipelineForEntity } from '../../pipelines/registry.js';
import { demoPostsSql } from '../../pipelines/sources/demo.source.js';
import { filesSource } from '../../pipelines/sources/files.source.js';
import { POST_COLUMNS, postRow, writeCsv } from '../fixtures/pipelines/files.js';
import { creatorAt } from '../helpers/creators.js';
import { createTestStore, setContentLists, type TestStore } from '../helpers/store.js';

let t: TestStore;
beforeAll(async () => {
  t = await createTestStore({ creators: 300 });
});
afterAll(async () => {
  await t.cleanup();
});

const DAY = 86_400_000;

async function ingest(
  file: string,
  entity: EntityName,
  now?: Date,
  format: 'csv' | 'parquet' = 'csv',
): Promise<RunRecord> {
  const outcome = await runPipeline(
    { store: t.store, config: t.config, ...(now ? { now: () => now } : {}) },
    pipelineForEntity(entity),
    { source: filesSource([{ entity, file, format }]) },
  );
  const run = outcome.runs[0];
  if (!run) throw new Error('no run');
  return run;
}

async function count(sql: string, params: Array<string | number> = []): Promise<number> {
  return Number((await t.store.one<{ n: number }>(sql, params))?.n ?? 0);
}

async function quarantined(
  runId: string,
): Promise<Array<{ line: number; column_name: string | null; reason: string }>> {
  return t.store.all(`SELECT line, column_name, reason FROM quarantine WHERE run_id = ? ORDER BY line, column_name`, [
    runId,
  ]);
}

describe('posts with captions', () => {
  it('stores the parsed hashtags and mentions, the brand normalised, and an old type name as its new one; the creator is re-derived', async () => {
    const c = await creatorAt(t.store, 0);
    const at = new Date(Date.now() - DAY).toISOString();
    const file = writeCsv(t.dir, 'posts-captions.csv', POST_COLUMNS, [
      postRow(c, {
        post_id: 'cap-1',
        posted_at: at,
        type: 'Carousel',
        likes: 10,
        comments: 1,
        sponsored: 'true',
        caption: 'Leg day with @IronPeak. #LegDay #ad',
        brand: 'IronPeak',
      }),
      postRow(c, { post_id: 'cap-2', posted_at: at, type: 'stream', likes: 10, comments: 1, caption: '#legday again' }),
    ]);
    const run = await ingest(file, 'posts');
    expect(run).toMatchObject({ status: 'succeeded', rows_loaded: 2, rows_rejected: 0, rows_changed: 2 });
    const rows = await t.store.all(
      `SELECT post_id, type, brand, hashtags, mentions FROM posts WHERE post_id LIKE 'cap-%' ORDER BY post_id`,
    );
    expect(rows).toEqual([
      { post_id: 'cap-1', type: 'post', brand: '@ironpeak', hashtags: ['ad', 'legday'], mentions: ['ironpeak'] },
      { post_id: 'cap-2', type: 'live', brand: null, hashtags: ['legday'], mentions: [] },
    ]);
    const derived = await t.store.one<{ hashtags: string[]; brands: string[] }>(
      'SELECT hashtags, brands FROM creator_content WHERE creator_id = ?',
      [c.creator_id],
    );
    expect(derived?.hashtags).toContain('legday');
    expect(derived?.brands).toContain('@ironpeak');
  });

  it('quarantines a brand on a post that is not sponsored and a brand that is not a handle, each with its reason', async () => {
    const c = await creatorAt(t.store, 1);
    const at = new Date(Date.now() - DAY).toISOString();
    const file = writeCsv(t.dir, 'posts-bad-brand.csv', POST_COLUMNS, [
      postRow(c, { post_id: 'bb-1', posted_at: at, sponsored: 'false', brand: '@acme' }),
      postRow(c, { post_id: 'bb-2', posted_at: at, sponsored: 'true', brand: 'ac me!' }),
      postRow(c, { post_id: 'bb-3', posted_at: at, type: 'image', sponsored: 'true', brand: '@acme' }),
    ]);
    const run = await ingest(file, 'posts');
    expect(run).toMatchObject({ rows_loaded: 1, rows_rejected: 2 });
    expect(await quarantined(run.run_id)).toEqual([
      { line: 2, column_name: 'brand', reason: 'a brand is only for a sponsored post (sponsored is not true)' },
      { line: 3, column_name: 'brand', reason: 'not a valid handle' },
    ]);
  });
});

describe('the year of posts the store keeps', () => {
  it('does not load a file row older than 365 days (counted stale), and loading the same rows again changes nothing and emits no events', async () => {
    const c = await creatorAt(t.store, 2);
    const rows = [
      { post_id: 'keep-1', posted_at: new Date(Date.now() - 2 * DAY).toISOString(), caption: 'fresh #new' },
      { post_id: 'old-1', posted_at: new Date(Date.now() - 400 * DAY).toISOString(), caption: 'ancient #old' },
    ].map((row) => postRow(c, { ...row, likes: 5, comments: 1 }));
    const first = await ingest(writeCsv(t.dir, 'posts-window-a.csv', POST_COLUMNS, rows), 'posts');
    expect(first).toMatchObject({ status: 'succeeded', rows_read: 2, rows_changed: 1, rows_stale: 1 });
    expect(await count(`SELECT count(*) AS n FROM posts WHERE post_id = 'old-1'`)).toBe(0);
    const events = await count('SELECT count(*) AS n FROM events');
    // the same rows in another order: other bytes, so the file is loaded again rather than skipped as seen
    const again = await ingest(writeCsv(t.dir, 'posts-window-b.csv', POST_COLUMNS, [...rows].reverse()), 'posts');
    expect(again).toMatchObject({
      status: 'succeeded',
      rows_read: 2,
      rows_changed: 0,
      rows_stale: 1,
      events_emitted: 0,
    });
    expect(await count('SELECT count(*) AS n FROM events')).toBe(events);
  });

  it('prunes stored posts that have grown older than 365 days at a later load, re-deriving their creators and telling of the change', async () => {
    const aged = await creatorAt(t.store, 3);
    const other = await creatorAt(t.store, 4);
    const now = new Date(Date.now() + 30 * DAY);
    // 350 days old today: kept now, past the year at `now`
    await t.store.run(
      `INSERT INTO posts (creator_id, post_id, posted_at, type, likes, comments, sponsored, caption, hashtags, mentions)
      VALUES (?, 'aging-1', ?::TIMESTAMP, 'post', 1, 0, false, '#vintage', ['vintage'], [])`,
      [aged.creator_id, sqlTimestamp(Date.now() - 350 * DAY)],
    );
    await setContentLists(t.store, aged.creator_id, { hashtags: "['vintage']" });
    const before = await count(`SELECT count(*) AS n FROM posts WHERE posted_at < ?::TIMESTAMP`, [
      sqlTimestamp(now.getTime() - 365 * DAY),
    ]);
    expect(before).toBeGreaterThan(0);
    const seq = await count('SELECT coalesce(max(seq), 0) AS n FROM events');
    const file = writeCsv(t.dir, 'posts-later.csv', POST_COLUMNS, [
      postRow(other, { post_id: 'later-1', posted_at: new Date().toISOString() }),
    ]);
    const run = await ingest(file, 'posts', now);
    expect(run.status).toBe('succeeded');
    expect(
      await count(`SELECT count(*) AS n FROM posts WHERE posted_at < ?::TIMESTAMP`, [
        sqlTimestamp(now.getTime() - 365 * DAY),
      ]),
    ).toBe(0);
    expect(await count(`SELECT count(*) AS n FROM posts WHERE post_id = 'aging-1'`)).toBe(0);
    const derived = await t.store.one<{ hashtags: string[] }>(
      'SELECT hashtags FROM creator_content WHERE creator_id = ?',
      [aged.creator_id],
    );
    expect(derived?.hashtags ?? []).not.toContain('vintage');
    const told = await count(
      `SELECT count(*) AS n FROM events WHERE type = 'creator.updated' AND seq > ? AND creator_id = ?`,
      [seq, aged.creator_id],
    );
    expect(told).toBe(1);
  });
});

describe('contacts and linked accounts', () => {
  it('merges contacts, quarantining a bad e-mail, a URL that is not http(s) and a row with neither, each with its reason', async () => {
    const [a, b, c, d] = await Promise.all([5, 6, 7, 8].map((i) => creatorAt(t.store, i)));
    if (!a || !b || !c || !d) throw new Error('no creators');
    const seq = await count('SELECT coalesce(max(seq), 0) AS n FROM events');
    const file = writeCsv(
      t.dir,
      'creator_contacts-mixed.csv',
      ['platform', 'handle', 'email', 'website'],
      [
        { platform: a.platform, handle: a.handle, email: 'team@brand.example', website: 'https://a.example/x' },
        { platform: b.platform, handle: b.handle, email: 'not-an-email', website: '' },
        { platform: c.platform, handle: c.handle, email: '', website: 'ftp://files.example' },
        { platform: d.platform, handle: d.handle, email: '', website: '' },
      ],
    );
    const run = await ingest(file, 'creator_contacts');
    expect(run).toMatchObject({ rows_loaded: 1, rows_rejected: 3, rows_changed: 1 });
    expect(await quarantined(run.run_id)).toEqual([
      { line: 3, column_name: 'email', reason: 'not an e-mail address' },
      { line: 4, column_name: 'website', reason: 'not an http(s) URL' },
      { line: 5, column_name: 'email', reason: 'an email or a website is required' },
    ]);
    expect(await t.store.one('SELECT has_contact FROM creators WHERE creator_id = ?', [a.creator_id])).toEqual({
      has_contact: true,
    });
    expect(await count(`SELECT count(*) AS n FROM events WHERE seq > ?`, [seq])).toBe(1);
  });

  it('appends linked accounts, quarantining an unknown platform and the account itself', async () => {
    const a = await creatorAt(t.store, 9);
    const other = a.platform === 'x' ? 'tiktok' : 'x';
    const file = writeCsv(
      t.dir,
      'linked_accounts-mixed.csv',
      ['platform', 'handle', 'linked_platform', 'linked_handle'],
      [
        { platform: a.platform, handle: a.handle, linked_platform: other.toUpperCase(), linked_handle: 'SameMe' },
        { platform: a.platform, handle: a.handle, linked_platform: 'myspace', linked_handle: '@me' },
        { platform: a.platform, handle: a.handle, linked_platform: a.platform, linked_handle: a.handle },
      ],
    );
    const run = await ingest(file, 'linked_accounts');
    expect(run).toMatchObject({ rows_loaded: 1, rows_rejected: 2 });
    expect(await quarantined(run.run_id)).toEqual([
      { line: 3, column_name: 'linked_platform', reason: 'not a known platform' },
      { line: 4, column_name: 'linked_handle', reason: 'is the account itself' },
    ]);
    const row = await t.store.one<{ linked_platforms: string[] }>(
      'SELECT linked_platforms FROM creator_content WHERE creator_id = ?',
      [a.creator_id],
    );
    expect(row?.linked_platforms).toContain(other);
    expect(
      await t.store.all('SELECT linked_handle FROM linked_accounts WHERE creator_id = ? AND linked_platform = ?', [
        a.creator_id,
        other,
      ]),
    ).toContainEqual({ linked_handle: '@sameme' });
  });
});

describe('the demo feed', () => {
  it('writes posts with captions, brands only on sponsored posts and the new types, which load with no rejects and their tags parsed', async () => {
    const file = `${t.dir}/posts-demo-feed.parquet`;
    const tick = new Date();
    await t.store.run(`COPY (${demoPostsSql(1)}) TO '${file}' (FORMAT parquet)`, [
      tick.getTime(),
      tick.toISOString().replace('Z', ''),
    ]);
    const run = await ingest(file, 'posts', undefined, 'parquet');
    expect(run).toMatchObject({ status: 'succeeded', rows_read: 300, rows_rejected: 0 });
    const row = await t.store.one<{
      captions: number;
      tagged: number;
      mentioning: number;
      sponsored: number;
      branded: number;
      types: string[];
    }>(`SELECT
      count(caption) AS captions, count(*) FILTER (WHERE len(hashtags) > 0) AS tagged, count(*) FILTER (WHERE len(mentions) > 0) AS mentioning,
      count(*) FILTER (WHERE sponsored) AS sponsored, count(brand) AS branded, list_sort(list(DISTINCT type)) AS types
      FROM posts WHERE post_id LIKE 'demo-%'`);
    expect(row?.captions).toBeGreaterThan(250);
    expect(row?.tagged).toBeGreaterThan(150);
    expect(row?.mentioning).toBeGreaterThan(0);
    expect(row?.branded).toBeGreaterThan(0);
    expect(row?.branded).toBeLessThanOrEqual(Number(row?.sponsored));
    expect(row?.types.every((x) => ['post', 'reel', 'short', 'video', 'story', 'live'].includes(x))).toBe(true);
  });
});
