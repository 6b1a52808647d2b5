import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { getPipeline } from '../../pipelines/registry.js';
import { filesSource } from '../../pipelines/sources/files.source.js';
import { CREATOR_COLUMNS, creatorRow, writeCsv } from '../fixtures/pipelines/files.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let runId = '';
let file = '';

interface Page {
  data: Array<Record<string, unknown>>;
  next_cursor: string | null;
}

beforeAll(async () => {
  t = await startTestApp({ creators: 200 });
  file = writeCsv(t.dir, 'creators-rejects.csv', CREATOR_COLUMNS, [
    creatorRow({ handle: '@rejects_ok' }), // line 2
    creatorRow({ handle: '@rejects_two', followers: 'lots', niche: 'astrology' }), // line 3: two faults
    creatorRow({ handle: '@rejects_one', country: 'XX' }), // line 4: one fault
  ]);
  const outcome = await runPipeline({ store: t.store, config: t.config }, getPipeline('creators'), {
    source: filesSource([{ entity: 'creators', file, format: 'csv' }]),
  });
  runId = outcome.runs[0]?.run_id ?? '';
  await t.relay(); // cluster mode: the run record is relayed to PostgreSQL; the faults are read from the store
});
afterAll(async () => {
  await t.close();
});

it('GET /v1/runs/{run_id}/rejects lists every fault of every rejected row with file, line, column, value and reason', async () => {
  const key = await t.key({ scopes: ['admin'] });
  const run = (await (await t.api(`/v1/runs/${runId}`, { key })).json()) as Record<string, unknown>;
  expect(run).toMatchObject({ rows_read: 3, rows_loaded: 1, rows_rejected: 2 });
  const res = await t.api(`/v1/runs/${runId}/rejects`, { key });
  expect(res.status).toBe(200);
  expect(await res.json()).toEqual({
    data: [
      { file, line: 3, column: 'niche', value: 'astrology', reason: 'not a known niche' },
      { file, line: 3, column: 'followers', value: 'lots', reason: 'not a valid bigint' },
      { file, line: 4, column: 'country', value: 'XX', reason: 'not a known ISO 3166-1 alpha-2 country code' },
    ],
    next_cursor: null,
  });
});

it('GET /v1/runs/{run_id}/rejects pages with limit and cursor, the cursor bound to its run', async () => {
  const key = await t.key({ scopes: ['admin'] });
  const seen: Array<Record<string, unknown>> = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const res = await t.api(
      `/v1/runs/${runId}/rejects?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { key },
    );
    const page = (await res.json()) as Page;
    seen.push(...page.data);
    cursor = page.next_cursor;
    pages++;
  } while (cursor && pages < 5);
  expect(pages).toBe(2);
  expect(seen.map((f) => [f['line'], f['column']])).toEqual([
    [3, 'niche'],
    [3, 'followers'],
    [4, 'country'],
  ]);

  const first = (await (await t.api(`/v1/runs/${runId}/rejects?limit=1`, { key })).json()) as Page;
  const elsewhere = await t.api(
    `/v1/runs/run_0000000000000000000000/rejects?cursor=${encodeURIComponent(first.next_cursor ?? '')}`,
    { key },
  );
  expect(elsewhere.status).toBe(400);
});

it('GET /v1/runs/{run_id}/rejects answers 404 for an unknown run and 403 without the admin scope', async () => {
  const missing = await t.api('/v1/runs/run_0000000000000000000000/rejects', {
    key: await t.key({ scopes: ['admin'] }),
  });
  expect(missing.status).toBe(404);
  const forbidden = await t.api(`/v1/runs/${runId}/rejects`, { key: await t.key() });
  expect(forbidden.status).toBe(403);
});

it('a run that rejected nothing answers an empty list', async () => {
  const clean = writeCsv(t.dir, 'creators-rejects-clean.csv', CREATOR_COLUMNS, [
    creatorRow({ handle: '@rejects_clean' }),
  ]);
  const outcome = await runPipeline({ store: t.store, config: t.config }, getPipeline('creators'), {
    source: filesSource([{ entity: 'creators', file: clean, format: 'csv' }]),
  });
  await t.relay();
  const res = await t.api(`/v1/runs/${outcome.runs[0]?.run_id ?? ''}/rejects`, {
    key: await t.key({ scopes: ['admin'] }),
  });
  expect(await res.json()).toEqual({ data: [], next_cursor: null });
});

it('GET /v1/runs/{run_id} lists the warnings of a run that read past unknown columns', async () => {
  const extra = writeCsv(
    t.dir,
    'creators-rejects-extra.csv',
    [...CREATOR_COLUMNS, 'tiktok_region'],
    [{ ...creatorRow({ handle: '@rejects_extra' }), tiktok_region: 'EU' }],
  );
  const outcome = await runPipeline({ store: t.store, config: t.config }, getPipeline('creators'), {
    source: filesSource([{ entity: 'creators', file: extra, format: 'csv' }]),
  });
  await t.relay();
  const res = await t.api(`/v1/runs/${outcome.runs[0]?.run_id ?? ''}`, { key: await t.key({ scopes: ['admin'] }) });
  expect(await res.json()).toMatchObject({
    status: 'succeeded',
    rows_loaded: 1,
    warnings: [
      'creators-rejects-extra.csv: unknown column(s) tiktok_region ignored (creators has no such column; docs/data-formats.md)',
    ],
  });
});
