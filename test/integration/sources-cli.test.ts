import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli, withCliDataDir, withMigratedStore, type CliResult } from '../helpers/cli.js';
import { apiCreator, SECRETS, startFakeApi, type FakeApi } from './sources-fake-api.js';

const dir = mkdtempSync(join(tmpdir(), 'cds-cli-sources-'));
const file = join(dir, 'sources.json');
let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi();
  writeFileSync(
    file,
    JSON.stringify({
      sources: {
        'partner-api': {
          kind: 'http_json',
          entity: 'creators',
          base_url: api.url,
          path: '/cursor/bearer',
          allow_insecure_localhost: true,
          records: 'data',
          auth: { type: 'bearer', token: { env: 'PARTNER_TOKEN' } },
          paginator: { type: 'cursor', cursor_path: 'meta.next_cursor', cursor_param: 'cursor' },
          incremental: { cursor_field: 'updated_at', param: 'updated_since' },
          fields: {
            platform: { const: 'tiktok' },
            handle: 'profile.handle',
            niche: 'category',
            followers: { path: 'stats.followers', convert: 'integer' },
            updated_at: 'updated_at',
          },
        },
      },
    }),
  );
  chmodSync(file, 0o600);
  await withMigratedStore(join(dir, 'var'));
});
afterAll(async () => {
  await api.close();
  rmSync(dir, { recursive: true, force: true });
});

function cds(...args: string[]): Promise<CliResult> {
  return runCli(args, {
    cwd: dir,
    env: {
      ...process.env,
      CDS_DATA_DIR: join(dir, 'var'),
      CDS_DEMO: '0',
      CDS_LOG_LEVEL: 'silent',
      CDS_SOURCES: file,
      PARTNER_TOKEN: SECRETS.bearer,
    },
  });
}

it('cds sources list and run: the run is recorded in cds runs, a failed pull exits 1 naming the record', async () => {
  const list = await cds('sources', 'list', '--json');
  expect(JSON.parse(list.stdout)).toEqual([
    expect.objectContaining({
      name: 'partner-api',
      kind: 'http_json',
      auth: 'bearer (env PARTNER_TOKEN)',
      cursor: null,
    }),
  ]);
  expect(list.stdout).not.toContain(SECRETS.bearer);

  const run = await cds('sources', 'run', 'partner-api', '--json');
  expect(run.code).toBe(0);
  expect(JSON.parse(run.stdout).runs[0]).toMatchObject({
    pipeline: 'partner-api',
    status: 'succeeded',
    rows_loaded: 7,
  });
  api.creators.push(apiCreator(9, { stats: { followers: 'n/a' } }));
  const failed = await cds('sources', 'run', 'partner-api');
  expect(failed.code).toBe(1);
  expect(failed.stdout).toContain('page 1, record 1: field followers (stats.followers): expected a number, got "n/a"');
  const runs = await cds('runs', '--pipeline', 'partner-api', '--json');
  expect((JSON.parse(runs.stdout) as Array<{ status: string }>).map((r) => r.status)).toEqual(['failed', 'succeeded']);
});

it("with a server running without CDS_SOURCES, cds sources says whose configuration applies, and test uses the caller's file", async () => {
  await withCliDataDir(join(dir, 'served'), true, async (served) => {
    const env = {
      ...process.env,
      CDS_DATA_DIR: served,
      CDS_DEMO: '0',
      CDS_LOG_LEVEL: 'silent',
      CDS_SOURCES: file,
      PARTNER_TOKEN: SECRETS.bearer,
    };
    const list = await runCli(['sources', 'list'], { cwd: dir, env });
    expect(list.code).toBe(1);
    expect(list.stderr).toContain("the running server's configuration is used (it has no CDS_SOURCES)");
    const test = await runCli(['sources', 'test', 'partner-api'], { cwd: dir, env });
    expect(test.code).toBe(1);
    expect(test.stderr).toContain('the environment variable PARTNER_TOKEN is not set');
    expect(test.stderr).toContain("the running server resolves secrets from its own environment, not this shell's");
    const run = await runCli(['sources', 'run', 'partner-api'], { cwd: dir, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no sources are configured in the running server');
  });
});
