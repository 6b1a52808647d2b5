import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExportWorker, type ExportWorker } from '../../connectors/exports/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let worker: ExportWorker;
let key: string;
let accountId: string;

interface Job {
  id: string;
  status: string;
  row_count: number | null;
  bytes: number | null;
  sha256: string | null;
  download_url: string | null;
  expires_at: string | null;
}
interface Problem {
  code: string;
  status: number;
  detail: string;
  errors?: Array<{ field?: string; message: string }>;
}

async function post(json: unknown, k = key, headers: Record<string, string> = {}): Promise<Response> {
  return t.api('/v1/exports', { key: k, method: 'POST', json, headers });
}

async function finished(json: unknown): Promise<Job> {
  const res = await post(json);
  expect(res.status).toBe(202);
  const job = (await res.json()) as Job;
  expect(await worker.runNext()).toBe(true);
  return (await (await t.api(`/v1/exports/${job.id}`, { key })).json()) as Job;
}

beforeAll(async () => {
  t = await startTestApp({ creators: 2000, planLimits: { entry: { exportRows: 1500 } } });
  worker = createExportWorker({ store: t.store, state: t.state, config: t.config, logger: pino({ level: 'silent' }) });
  ({ key, accountId } = await t.keyWithAccount());
});
afterAll(async () => t.close());

describe('export jobs over HTTP', () => {
  it('a CSV export is queued (202), runs, and downloads with length, type, disposition and a matching SHA-256', async () => {
    const res = await post({ source: 'search', filters: { niche: 'beauty', sort: '-engagement_rate' }, format: 'csv' });
    expect(res.status).toBe(202);
    const queued = (await res.json()) as Job;
    expect(queued.status).toBe('queued');
    expect(res.headers.get('location')).toBe(`/v1/exports/${queued.id}`);
    const early = await t.api(`/v1/exports/${queued.id}/download`, { key });
    expect(early.status).toBe(409);
    // the export's own status travels as `export_status`; `status` stays the HTTP status
    expect(await early.json()).toMatchObject({ code: 'conflict', status: 409, export_status: 'queued' });

    expect(await worker.runNext()).toBe(true);
    const job = (await (await t.api(`/v1/exports/${queued.id}`, { key })).json()) as Job;
    expect(job).toMatchObject({ status: 'succeeded', download_url: `/v1/exports/${queued.id}/download` });
    const dl = await t.api(job.download_url as string, { key });
    expect(dl.status).toBe(200);
    const body = Buffer.from(await dl.arrayBuffer());
    const sha = createHash('sha256').update(body).digest('hex');
    expect(sha).toBe(job.sha256);
    expect(Number(dl.headers.get('content-length'))).toBe(job.bytes);
    expect(body.length).toBe(job.bytes);
    expect(dl.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(dl.headers.get('content-disposition')).toBe(`attachment; filename="${job.id}.csv"`);
    expect(dl.headers.get('x-checksum-sha256')).toBe(sha);
    expect(dl.headers.get('repr-digest')).toBe(`sha-256=:${createHash('sha256').update(body).digest('base64')}:`);
    const head = await t.api(job.download_url as string, { key, method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), head.headers.get('x-checksum-sha256')]).toEqual([
      200,
      String(job.bytes),
      sha,
    ]);
    const expected = await t.store.one<{ n: number }>(`SELECT count(*) AS n FROM creators WHERE niche = 'beauty'`);
    expect(job.row_count).toBe(expected?.n);
    expect(body.toString('utf8').split('\r\n').length - 2).toBe(expected?.n);
  });

  it('an export of a price search holds what the search finds, in its order (price_max, sort=-price)', async () => {
    // prices set directly (a pricing model writes them): a tenth without an estimate, ties at 250
    await t.store.run(`UPDATE creators SET price_post_usd = CASE WHEN creator_id % 10 = 3 THEN NULL
        WHEN creator_id % 7 = 0 THEN 250 ELSE round(0.02 * pow(followers, 0.8), 2) END`);
    const job = await finished({
      source: 'search',
      filters: { niche: 'fitness', price_max: 300, sort: '-price' },
      format: 'ndjson',
    });
    expect(job.status).toBe('succeeded');
    const body = await (await t.api(job.download_url as string, { key })).text();
    const rows = body
      .split('\n')
      .filter((line) => line.length > 0)
      .map((line) => JSON.parse(line) as { platform: string; handle: string });
    const expected = await t.store.all<{ platform: string; handle: string }>(
      `SELECT platform, handle FROM creators WHERE niche = 'fitness' AND price_post_usd <= 300
      ORDER BY price_post_usd DESC, creator_id`,
    );
    expect(expected.length).toBeGreaterThan(10);
    expect(rows.map((r) => `${r.platform}/${r.handle}`)).toEqual(expected.map((r) => `${r.platform}/${r.handle}`));
  });

  it('a finished export writes one export.completed event for its account', async () => {
    const job = await finished({ source: 'search', filters: { niche: 'music' }, format: 'ndjson' });
    const events = await t.state.all<{ account_id: string; payload: string }>(
      `SELECT account_id, payload::VARCHAR AS payload FROM events WHERE type = 'export.completed' AND (payload->>'export_id') = ?`,
      [job.id],
    );
    expect(events).toHaveLength(1);
    expect(events[0]?.account_id).toBe(accountId);
    expect(JSON.parse(events[0]?.payload ?? '{}')).toMatchObject({
      export_id: job.id,
      status: 'succeeded',
      format: 'ndjson',
      row_count: job.row_count,
      bytes: job.bytes,
      sha256: job.sha256,
      download_url: `/v1/exports/${job.id}/download`,
    });
  });

  it('over the plan row cap the answer is 403 limit_exceeded and nothing is queued', async () => {
    const before = await t.state.one<{ n: number }>('SELECT count(*) AS n FROM exports');
    const res = await post({ source: 'search', filters: {}, format: 'parquet' });
    expect(res.status).toBe(403);
    expect(((await res.json()) as Problem).code).toBe('limit_exceeded');
    expect(await t.state.one<{ n: number }>('SELECT count(*) AS n FROM exports')).toEqual(before);
  });

  it('unknown fields, filters and body members are a 400 naming them', async () => {
    const fields = await post({ source: 'search', format: 'csv', fields: ['handle', 'password', 'ssn'] });
    expect(fields.status).toBe(400);
    const p = (await fields.json()) as Problem;
    expect(p.code).toBe('invalid_body');
    expect(p.detail).toContain('password, ssn');
    const filter = await post({ source: 'search', format: 'csv', filters: { nich: 'beauty' } });
    expect(filter.status).toBe(400);
    expect(JSON.stringify(await filter.json())).toContain('filters.nich');
    const handles = await post({ source: 'creators', format: 'csv', handles: ['@fine', 'not a handle!'] });
    expect(handles.status).toBe(400);
    expect(((await handles.json()) as Problem).errors?.[0]?.field).toBe('handles[1]');
    const member = await post({ source: 'search', format: 'csv', path: '../../etc/passwd' });
    expect(member.status).toBe(400);
    expect(((await member.json()) as Problem).code).toBe('invalid_body');
  });

  it('a creators export takes handles in any accepted spelling, with or without a platform', async () => {
    const picks = await t.store.all<{ handle: string; platform: string }>(
      'SELECT handle, platform FROM creators ORDER BY creator_id LIMIT 2',
    );
    const [a, b] = picks as [{ handle: string; platform: string }, { handle: string; platform: string }];
    const bare = a.handle.slice(1).toUpperCase();
    const job = await finished({
      source: 'creators',
      format: 'json',
      fields: ['handle', 'platform'],
      handles: [bare, `%40${bare}`, { handle: b.handle, platform: b.platform }],
    });
    expect(job.status, JSON.stringify(job)).toBe('succeeded');
    const body = (await (await t.api(job.download_url as string, { key })).json()) as Array<{
      handle: string;
      platform: string;
    }>;
    const expected = await t.store.all<{ handle: string; platform: string }>(
      `SELECT handle, platform FROM creators
      WHERE handle = ? OR (handle = ? AND platform = ?) ORDER BY handle, platform`,
      [a.handle, b.handle, b.platform],
    );
    expect(body).toEqual(expected);
  });

  it('ids that try to leave the exports folder, and other accounts’ exports, are 404', async () => {
    const job = await finished({ source: 'creators', handles: ['@nobody'], format: 'json' });
    for (const id of [
      '..%2F..%2Fcds.duckdb',
      '..%2F' + job.id,
      `${job.id}%2F..%2F..%2Fcds`,
      'exp_..',
      `${job.id}.csv`,
    ]) {
      const res = await t.api(`/v1/exports/${id}/download`, { key });
      expect([400, 404]).toContain(res.status);
    }
    const other = await t.key();
    expect((await t.api(`/v1/exports/${job.id}`, { key: other })).status).toBe(404);
    expect((await t.api(`/v1/exports/${job.id}/download`, { key: other })).status).toBe(404);
  });

  it('another account’s list or campaign is a 404, never exported', async () => {
    const list = await t.api('/v1/lists', { key, method: 'POST', json: { name: 'mine' } });
    const { id } = (await list.json()) as { id: string };
    const other = await t.key();
    expect((await post({ source: 'list', list_id: id, format: 'csv' }, other)).status).toBe(404);
    const campaign = await t.store.one<{ campaign_id: string }>('SELECT campaign_id FROM campaigns LIMIT 1');
    expect((await post({ source: 'campaign', campaign_id: campaign?.campaign_id, format: 'csv' })).status).toBe(404);
  });

  it('an expired export answers 410 on download, and the clean-up removes its file', async () => {
    const job = await finished({ source: 'search', filters: { niche: 'pets' }, format: 'parquet' });
    const file = join(t.config.exportsDir, `${job.id}.parquet`);
    expect(existsSync(file)).toBe(true);
    await t.state.run(`UPDATE exports SET expires_at = TIMESTAMP '2000-01-01' WHERE export_id = ?`, [job.id]);
    expect(((await (await t.api(`/v1/exports/${job.id}`, { key })).json()) as Job).status).toBe('expired');
    const gone = await t.api(`/v1/exports/${job.id}/download`, { key });
    expect(gone.status).toBe(410);
    expect(((await gone.json()) as Problem).status).toBe(410);
    expect(await worker.cleanupExpired()).toBeGreaterThanOrEqual(1);
    expect(existsSync(file)).toBe(false);
    expect((await t.api(`/v1/exports/${job.id}/download`, { key })).status).toBe(410);
  });

  it('the same Idempotency-Key and body replays the first job; a different body is 422', async () => {
    const body = { source: 'search', filters: { niche: 'food' }, format: 'arrow' };
    const first = (await (await post(body, key, { 'Idempotency-Key': 'exp-1' })).json()) as Job;
    const again = await post(body, key, { 'Idempotency-Key': 'exp-1' });
    expect(again.status).toBe(202);
    expect(((await again.json()) as Job).id).toBe(first.id);
    expect((await post({ ...body, format: 'csv' }, key, { 'Idempotency-Key': 'exp-1' })).status).toBe(422);
    while (await worker.runNext());
  });

  it('lists the account’s exports newest first, paged by cursor', async () => {
    const page1 = (await (await t.api('/v1/exports?limit=2', { key })).json()) as {
      data: Job[];
      next_cursor: string | null;
    };
    expect(page1.data).toHaveLength(2);
    expect(page1.next_cursor).not.toBeNull();
    const page2 = (await (await t.api(`/v1/exports?limit=2&cursor=${page1.next_cursor}`, { key })).json()) as {
      data: Job[];
    };
    const ids = [...page1.data, ...page2.data].map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(readdirSync(t.config.exportsDir).some((f) => f.endsWith('.part'))).toBe(false);
  });
});
