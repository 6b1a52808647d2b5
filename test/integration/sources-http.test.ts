import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { testConfig, type Config } from '../../config/config.js';
import type { PipelineDeps } from '../../pipelines/engine/pipeline.js';
import { readCursor } from '../../pipelines/engine/run.queries.js';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { getPipeline } from '../../pipelines/registry.js';
import { listRuns } from '../../pipelines/runs.queries.js';
import { testSource } from '../../pipelines/sources/sources.service.js';
import type { TestStore } from '../helpers/store.js';
import { apiCreator, SECRETS, type FakeApi, withStoreAndFakeApi } from './sources-fake-api.js';

let t: TestStore;
let api: FakeApi;
let n = 0;
const logged: string[] = [];
const logger = {
  info: (obj: object, msg?: string) => void logged.push(JSON.stringify(obj) + (msg ?? '')),
  warn: (obj: object, msg?: string) => void logged.push(JSON.stringify(obj) + (msg ?? '')),
};

withStoreAndFakeApi((store, fake) => {
  t = store;
  api = fake;
});
beforeEach(() => {
  api.requests.length = 0;
  api.faults.clear();
  api.creators = Array.from({ length: 7 }, (_, i) => apiCreator(i + 1));
});

const FIELDS = {
  platform: { const: 'instagram' },
  handle: 'profile.handle',
  display_name: 'profile.name',
  country: 'profile.country',
  niche: 'category',
  followers: { path: 'stats.followers', convert: 'integer' },
  updated_at: 'updated_at',
};

/** A sources file (mode 0600) with one source against the fake API, and a config naming it with the test secrets. */
function configWith(
  source: Record<string, unknown>,
  env: Record<string, string> = {},
): { config: Readonly<Config>; name: string } {
  const name = `src-${++n}`;
  const file = join(t.dir, `sources-${n}.json`);
  writeFileSync(
    file,
    JSON.stringify({
      sources: {
        [name]: {
          kind: 'http_json',
          entity: 'creators',
          base_url: api.url,
          allow_insecure_localhost: true,
          fields: FIELDS,
          retry: { attempts: 4, base_delay_ms: 5, max_delay_ms: 20 },
          ...source,
        },
      },
    }),
  );
  chmodSync(file, 0o600);
  return {
    name,
    config: testConfig(t.dir, {
      CDS_SOURCES: file,
      TOKEN: SECRETS.bearer,
      HEADER_KEY: SECRETS.header,
      QUERY_KEY: SECRETS.query,
      BASIC_PW: SECRETS.password,
      ...env,
    }),
  };
}

async function run(source: Record<string, unknown>, env: Record<string, string> = {}) {
  const { config, name } = configWith(source, env);
  const deps: PipelineDeps = { store: t.store, config, logger };
  const outcome = await runPipeline(deps, getPipeline(name, config));
  return { name, config, deps, run: outcome.runs[0] };
}

const count = async (like: string): Promise<number> =>
  (await t.store.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM creators WHERE handle LIKE ?', [like]))?.n ?? 0;

it('a quarantined record names the source, its endpoint and its number in the pull, not the local staging file', async () => {
  api.creators[4] = apiCreator(5, { category: 'knitting' });
  const { run: r, name } = await run({
    path: '/cursor',
    records: 'data',
    paginator: { type: 'cursor', cursor_path: 'meta.next_cursor', cursor_param: 'cursor' },
  });
  expect(r).toMatchObject({ status: 'succeeded', rows_read: 7, rows_loaded: 6, rows_rejected: 1 });
  const rows = await t.store.all<{ file: string; line: number; column_name: string }>(
    'SELECT file, line, column_name FROM quarantine WHERE run_id = ?',
    [r?.run_id ?? ''],
  );
  expect(rows).toEqual([
    {
      file: `source ${name}: ${api.url}/cursor, 3 page(s); line = the record's number in the pull`,
      line: 5,
      column_name: 'niche',
    },
  ]);
});

describe('paginators', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    [
      'cursor in the body',
      {
        path: '/cursor',
        records: 'data',
        paginator: { type: 'cursor', cursor_path: 'meta.next_cursor', cursor_param: 'cursor' },
      },
    ],
    [
      'next URL in the body',
      { path: '/next-url', records: 'results', paginator: { type: 'next_url', next_url_path: 'links.next' } },
    ],
    ['Link header', { path: '/link', paginator: { type: 'link_header' } }],
    [
      'offset and limit',
      { path: '/offset', records: 'items', paginator: { type: 'offset', limit: 3, total_path: 'total' } },
    ],
    [
      'page number',
      {
        path: '/pages',
        records: 'items',
        paginator: { type: 'page_number', size_param: 'per_page', size: 3, total_pages_path: 'total_pages' },
      },
    ],
  ];
  it.each(cases)('%s: walks every page and loads all records in one run', async (_label, source) => {
    const { run: r } = await run(source);
    expect(r).toMatchObject({ status: 'succeeded', rows_read: 7, rows_loaded: 7, rows_rejected: 0 });
    expect(api.requests).toHaveLength(3);
    expect(await count('@partner_%')).toBe(7);
  });
});

describe('auth styles', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['bearer', { type: 'bearer', token: { env: 'TOKEN' } }],
    ['header', { type: 'api_key_header', name: 'X-Api-Key', key: { env: 'HEADER_KEY' } }],
    ['query', { type: 'api_key_query', name: 'api_key', key: { env: 'QUERY_KEY' } }],
    ['basic', { type: 'basic', username: SECRETS.user, password: { env: 'BASIC_PW' } }],
  ];
  it.each(cases)('%s: the credential from the environment is sent on every page', async (style, auth) => {
    const { run: r } = await run({
      path: `/cursor/${style}`,
      records: 'data',
      auth,
      paginator: { type: 'cursor', cursor_path: 'meta.next_cursor', cursor_param: 'cursor' },
    });
    expect(r).toMatchObject({ status: 'succeeded', rows_loaded: 7 });
    expect(api.requests).toHaveLength(3);
  });

  it('a wrong credential fails the run with the answer, and a missing variable names the variable', async () => {
    const wrong = await run(
      { path: '/cursor/bearer', records: 'data', auth: { type: 'bearer', token: { env: 'TOKEN' } } },
      { TOKEN: 'not-the-token' },
    );
    expect(wrong.run).toMatchObject({ status: 'failed' });
    expect(wrong.run?.error).toContain('/cursor/bearer answered 401');
    const missing = await run({
      path: '/cursor/bearer',
      records: 'data',
      auth: { type: 'bearer', token: { env: 'NO_SUCH_TOKEN' } },
    });
    expect(missing.run?.error).toContain('the environment variable NO_SUCH_TOKEN is not set');
  });
});

describe('incremental', () => {
  it('keeps the newest cursor value as the watermark; the next run asks only for what changed', async () => {
    const source = {
      path: '/cursor',
      records: 'data',
      paginator: { type: 'cursor', cursor_path: 'meta.next_cursor', cursor_param: 'cursor' },
      incremental: { cursor_field: 'updated_at', param: 'updated_since', initial: '2026-11-01T00:00:00Z' },
    };
    const { config, name } = configWith(source);
    const deps: PipelineDeps = { store: t.store, config, logger };
    const first = await runPipeline(deps, getPipeline(name, config));
    expect(first.runs[0]).toMatchObject({ status: 'succeeded', rows_loaded: 7 });
    expect(api.requests[0]?.query.get('updated_since')).toBe('2026-11-01T00:00:00Z');
    expect(await readCursor(t.store, name)).toBe('2026-11-17T10:00:00Z');

    api.requests.length = 0;
    api.creators[2] = apiCreator(3, { updated_at: '2026-11-19T08:00:00Z', stats: { followers: '99999' } });
    const second = await runPipeline(deps, getPipeline(name, config));
    expect(api.requests.map((r) => r.query.get('updated_since'))).toEqual(['2026-11-17T10:00:00Z']);
    expect(second.runs[0]).toMatchObject({ status: 'succeeded', rows_read: 1, rows_changed: 1 });
    expect(await readCursor(t.store, name)).toBe('2026-11-19T08:00:00Z');

    const third = await runPipeline(deps, getPipeline(name, config));
    expect(third.runs[0]).toMatchObject({
      status: 'skipped',
      rows_read: 0,
      error: 'no new records since updated_at 2026-11-19T08:00:00Z',
    });
  });
});

describe('retries and failures', () => {
  it('a 429 is retried no sooner than its Retry-After, and a 503 is retried', async () => {
    api.faults.set('/cursor', ['429:1', '503']);
    const started = Date.now();
    const { run: r } = await run({
      path: '/cursor',
      records: 'data',
      paginator: { type: 'cursor', cursor_path: 'meta.next_cursor', cursor_param: 'cursor' },
    });
    expect(r).toMatchObject({ status: 'succeeded', rows_loaded: 7 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(api.requests).toHaveLength(5);
  });

  it('a record that breaks the mapping fails the run naming page, record and field; nothing of the pull is loaded', async () => {
    api.creators = Array.from({ length: 7 }, (_, i) =>
      apiCreator(i + 1, { profile: { handle: `@broken_${i}`, name: 'B', country: 'GB' } }),
    );
    api.creators[4] = { ...api.creators[4], stats: { followers: 'lots' } };
    const { run: r, name } = await run({
      path: '/cursor',
      records: 'data',
      paginator: { type: 'cursor', cursor_path: 'meta.next_cursor', cursor_param: 'cursor' },
      incremental: { cursor_field: 'updated_at', param: 'updated_since' },
    });
    expect(r).toMatchObject({ status: 'failed', rows_loaded: 0 });
    expect(r?.error).toContain('page 2, record 2: field followers (stats.followers): expected a number, got "lots"');
    expect(await count('@broken_%')).toBe(0);
    expect(await readCursor(t.store, name)).toBeNull();
    expect(readdirSync(join(t.dir, 'source-staging'))).toEqual([]);
  });

  it('a page whose records are not a list fails the run', async () => {
    const { run: r } = await run({ path: '/cursor', records: 'meta', paginator: { type: 'none' } });
    expect(r?.error).toContain('page 1: records (meta) is not a list');
  });
});

describe('secrets', () => {
  it('never appear in logs, run records or errors, even when the API keeps failing', async () => {
    logged.length = 0;
    api.faults.set('/cursor/query', ['500', '500', '500', '500']);
    const failed = await run({
      path: '/cursor/query',
      records: 'data',
      auth: { type: 'api_key_query', name: 'api_key', key: { env: 'QUERY_KEY' } },
    });
    expect(failed.run?.error).toMatch(/failed 4 times \(last: answered 500\)/);
    const basic = await run(
      {
        path: '/cursor/basic',
        records: 'data',
        auth: { type: 'basic', username: SECRETS.user, password: { env: 'BASIC_PW' } },
      },
      { BASIC_PW: 'wrong-password-1' },
    );
    expect(basic.run?.status).toBe('failed');
    const runs = JSON.stringify(await listRuns(t.state, { limit: 1000 }));
    const text = `${logged.join('\n')}\n${runs}`;
    expect(logged.some((l) => l.includes('request retried'))).toBe(true);
    for (const secret of [...Object.values(SECRETS).filter((s) => s !== SECRETS.user), 'wrong-password-1']) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(Buffer.from(`${SECRETS.user}:${secret}`).toString('base64'));
    }
  });
});

describe('cds sources test', () => {
  it('maps one page and shows what would be rejected, writing nothing', async () => {
    api.creators = [
      apiCreator(1, { profile: { handle: '@dry_1', country: 'GB' } }),
      apiCreator(2, { profile: { handle: '@dry_2', country: 'ZZ' } }),
    ];
    const { config, name } = configWith({
      path: '/cursor',
      records: 'data',
      paginator: { type: 'cursor', cursor_path: 'meta.next_cursor', cursor_param: 'cursor' },
    });
    const before = (await listRuns(t.state, { limit: 1000 })).length;
    const result = await testSource({ store: t.store, config }, name);
    expect(result).toMatchObject({ pages: 1, rows: 2, rejected_total: 1 });
    expect(result.sample[0]).toMatchObject({ platform: 'instagram', handle: '@dry_1', followers: '1000' });
    expect(result.rejected).toEqual([
      { record: 2, faults: [{ column: 'country', reason: 'not a known ISO 3166-1 alpha-2 country code' }] },
    ]);
    expect(await count('@dry_%')).toBe(0);
    expect((await listRuns(t.state, { limit: 1000 })).length).toBe(before);
    expect(await readCursor(t.store, name)).toBeNull();
  });
});
