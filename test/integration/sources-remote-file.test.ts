import { chmodSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testConfig } from '../../config/config.js';
import { readCursor } from '../../pipelines/engine/run.queries.js';
import { runPipeline } from '../../pipelines/engine/runner.js';
import { getPipeline } from '../../pipelines/registry.js';
import { CREATOR_COLUMNS, creatorRow } from '../fixtures/pipelines/files.js';
import type { TestStore } from '../helpers/store.js';
import { type FakeApi, withStoreAndFakeApi } from './sources-fake-api.js';

let t: TestStore;
let api: FakeApi;
withStoreAndFakeApi((store, fake) => {
  t = store;
  api = fake;
});

function csv(rows: Array<Record<string, unknown>>): string {
  return (
    [CREATOR_COLUMNS.join(','), ...rows.map((r) => CREATOR_COLUMNS.map((c) => String(r[c] ?? '')).join(','))].join(
      '\n',
    ) + '\n'
  );
}

describe('remote file source', () => {
  it('loads the file, skips it as unchanged while the server answers 304 to its ETag, and loads it again once it changed', async () => {
    const file = join(t.dir, 'sources.yaml');
    writeFileSync(
      file,
      [
        'sources:',
        '  partner-file:',
        '    kind: remote_file',
        '    entity: creators',
        `    urls: ["${api.url}/files/creators.csv"]`,
        '    allow_insecure_localhost: true',
      ].join('\n'),
    );
    chmodSync(file, 0o600);
    const config = testConfig(t.dir, { CDS_SOURCES: file });
    const deps = { store: t.store, config };
    api.file.body = csv([creatorRow({ handle: '@remote_one' }), creatorRow({ handle: '@remote_two' })]);

    const first = await runPipeline(deps, getPipeline('partner-file', config));
    expect(first.runs[0]).toMatchObject({
      status: 'succeeded',
      rows_loaded: 2,
      source: `remote_file:${api.url}/files/creators.csv`,
    });
    expect(JSON.parse((await readCursor(t.store, 'partner-file')) ?? '{}')).toMatchObject({
      [`${api.url}/files/creators.csv`]: { etag: expect.any(String) },
    });

    api.requests.length = 0;
    const second = await runPipeline(deps, getPipeline('partner-file', config));
    expect(api.requests[0]?.headers['if-none-match']).toMatch(/^".+"$/);
    expect(second.runs[0]).toMatchObject({ status: 'skipped', rows_read: 0 });
    expect(second.runs[0]?.error).toContain('unchanged since the last pull');

    api.file.body = csv([creatorRow({ handle: '@remote_one', followers: 55555, updated_at: '2026-11-21T13:00:00Z' })]);
    const third = await runPipeline(deps, getPipeline('partner-file', config));
    expect(third.runs[0]).toMatchObject({ status: 'succeeded', rows_loaded: 1, rows_changed: 1 });
    expect(await t.store.one(`SELECT followers FROM creators WHERE handle = '@remote_one'`)).toEqual({
      followers: 55555,
    });
    expect(readdirSync(join(t.dir, 'source-staging'))).toEqual([]);
  });

  it('applies the source URL rules to every redirect hop: plain http to another host or the metadata address is refused, never fetched', async () => {
    const hits: string[] = [];
    const server = createServer((req, res) => {
      hits.push(req.url ?? '');
      const to: Record<string, string> = {
        '/to-metadata.csv': 'http://169.254.169.254/latest/meta-data/creators.csv',
        '/to-plain-http.csv': 'http://example.com/creators.csv',
        '/to-local.csv': `${api.url}/files/creators.csv`,
      };
      res.writeHead(302, { location: to[req.url ?? ''] ?? '/' }).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const file = join(t.dir, 'sources-redirects.yaml');
      writeFileSync(
        file,
        [
          'sources:',
          ...['to-metadata', 'to-plain-http', 'to-local'].flatMap((n) => [
            `  ${n}:`,
            '    kind: remote_file',
            '    entity: creators',
            `    urls: ["${base}/${n}.csv"]`,
            '    allow_insecure_localhost: true',
            '    retry: { attempts: 1 }',
          ]),
        ].join('\n'),
      );
      chmodSync(file, 0o600);
      const config = testConfig(t.dir, { CDS_SOURCES: file });
      const deps = { store: t.store, config };
      for (const [name, target] of [
        ['to-metadata', 'http://169.254.169.254/latest/meta-data/creators.csv'],
        ['to-plain-http', 'http://example.com/creators.csv'],
      ]) {
        const outcome = await runPipeline(deps, getPipeline(name!, config));
        expect(outcome.runs[0]?.status, name).toBe('failed');
        expect(outcome.runs[0]?.error, name).toContain(
          `redirected to ${target}, refused: ${new URL(target!).origin}: only https:// URLs are allowed`,
        );
      }
      api.file.body = csv([creatorRow({ handle: '@redirected_local' })]);
      const local = await runPipeline(deps, getPipeline('to-local', config));
      expect(local.runs[0]).toMatchObject({ status: 'succeeded', rows_loaded: 1 });
      expect(hits.sort()).toEqual(['/to-local.csv', '/to-metadata.csv', '/to-plain-http.csv']);
    } finally {
      server.close();
    }
  });
});
