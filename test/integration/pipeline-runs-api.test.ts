import { afterAll, beforeAll, expect, it } from 'vitest';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { getPipeline } from '../../pipelines/registry.js';
import { filesSource } from '../../pipelines/sources/files.source.js';
import { CREATOR_COLUMNS, creatorRow, writeCsv } from '../fixtures/pipelines/files.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
let runIds: string[] = [];

beforeAll(async () => {
  t = await startTestApp({ creators: 200 });
  const deps = { store: t.store, config: t.config };
  const good = writeCsv(t.dir, 'creators-api-1.csv', CREATOR_COLUMNS, [
    creatorRow({ handle: '@runs_api', niche: 'nope' }),
    creatorRow({ handle: '@runs_ok' }),
  ]);
  const again = writeCsv(t.dir, 'creators-api-2.csv', CREATOR_COLUMNS, [creatorRow({ handle: '@runs_two' })]);
  for (const file of [good, again]) {
    const outcome = await runPipeline(deps, getPipeline('creators'), {
      source: filesSource([{ entity: 'creators', file, format: 'csv' }]),
    });
    runIds.push(outcome.runs[0]?.run_id ?? '');
  }
  await t.relay(); // cluster mode: the API lists runs from the PostgreSQL mirror the writer's relay keeps
  runIds = runIds.reverse();
});
afterAll(async () => {
  await t.close();
});

it('GET /v1/runs needs the admin scope', async () => {
  const res = await t.api('/v1/runs', { key: await t.key() });
  expect(res.status).toBe(403);
});

it('GET /v1/runs lists run records newest first, page by page', async () => {
  const key = await t.key({ scopes: ['admin'] });
  const first = await t.api('/v1/runs?pipeline=creators&limit=1', { key });
  expect(first.status).toBe(200);
  const page1 = (await first.json()) as { data: Array<Record<string, unknown>>; next_cursor: string | null };
  expect(page1.data).toHaveLength(1);
  expect(page1.data[0]).toMatchObject({
    run_id: runIds[0],
    pipeline: 'creators',
    status: 'succeeded',
    rows_read: 1,
    rows_loaded: 1,
  });
  expect(page1.next_cursor).toEqual(expect.any(String));
  const second = await t.api(
    `/v1/runs?pipeline=creators&limit=1&cursor=${encodeURIComponent(page1.next_cursor ?? '')}`,
    { key },
  );
  const page2 = (await second.json()) as { data: Array<Record<string, unknown>>; next_cursor: string | null };
  expect(page2.data[0]).toMatchObject({
    run_id: runIds[1],
    rows_read: 2,
    rows_loaded: 1,
    rows_rejected: 1,
    rows_changed: 1,
    rows_stale: 0,
  });
  expect(page2.next_cursor).toBeNull();
});

it('GET /v1/runs/{run_id} answers one run, and 404 for an unknown one', async () => {
  const key = await t.key({ scopes: ['admin'] });
  const found = await t.api(`/v1/runs/${runIds[1]}`, { key });
  expect(found.status).toBe(200);
  expect(await found.json()).toMatchObject({
    run_id: runIds[1],
    source: expect.stringContaining('creators-api-1.csv'),
  });
  const missing = await t.api('/v1/runs/run_0000000000000000000000', { key });
  expect(missing.status).toBe(404);
});

it('GET /v1/runs/{run_id} counts the rows ignored as older than the stored ones in rows_stale', async () => {
  const stored = await t.store.one<{ platform: string; handle: string }>(
    'SELECT platform, handle FROM creators ORDER BY creator_id LIMIT 1',
  );
  const old = writeCsv(t.dir, 'creators-api-stale.csv', CREATOR_COLUMNS, [
    creatorRow({ platform: stored?.platform ?? '', handle: stored?.handle ?? '', updated_at: '2020-01-01T00:00:00Z' }),
  ]);
  const outcome = await runPipeline({ store: t.store, config: t.config }, getPipeline('creators'), {
    source: filesSource([{ entity: 'creators', file: old, format: 'csv' }]),
  });
  await t.relay();
  const res = await t.api(`/v1/runs/${outcome.runs[0]?.run_id ?? ''}`, { key: await t.key({ scopes: ['admin'] }) });
  expect(await res.json()).toMatchObject({ status: 'succeeded', rows_loaded: 1, rows_changed: 0, rows_stale: 1 });
});
