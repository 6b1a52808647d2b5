import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig, type Env } from '../../config/config.js';
import { createLogger } from '../../config/logger.js';
import { latestSnapshot } from '../../data/snapshots/snapshot.queries.js';
import { PgState } from '../../data/state/pg-state.js';
import { startService, type RunningService } from '../../server/main.js';
import { callAdmin } from '../../cli/admin-client.js';
import { creatorRow, CREATOR_COLUMNS, writeCsv } from '../fixtures/pipelines/files.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/state.js';

/**
 * Cluster mode end to end in one test process: a writer, a standby writer and an
 * API replica started by `startService` with `CDS_DATABASE_URL`, sharing one
 * PostgreSQL database and one shared folder, as `npm run cluster` runs them.
 */
describe('cluster mode: writer, standby and an API replica on one PostgreSQL', () => {
  const root = mkdtempSync(join(tmpdir(), 'cds-cluster-'));
  const shared = join(root, 'shared');
  let databaseUrl = '';
  let closeState: () => Promise<void> = async () => undefined;
  const running: RunningService[] = [];

  const env = (name: string, dataDir: string, roles: string, extra: Env = {}): Env => ({
    CDS_DATABASE_URL: databaseUrl,
    CDS_SHARED_DIR: shared,
    CDS_INSTANCE_NAME: name,
    CDS_ROLES: roles,
    CDS_SNAPSHOT_INTERVAL_SECONDS: '1',
    CDS_DEMO: '1',
    CDS_DEMO_CREATORS: '300',
    ...extra,
    CDS_DATA_DIR: dataDir,
  });
  const start = async (e: Env): Promise<RunningService> => {
    const config = testConfig(String(e['CDS_DATA_DIR']), e);
    const service = await startService(config, { logger: createLogger(config) });
    running.push(service);
    return service;
  };

  beforeAll(async () => {
    ({ databaseUrl, close: closeState } = await createTestDatabase());
  });

  afterAll(async () => {
    for (const s of running.reverse()) await s.stop().catch(() => undefined);
    await closeState();
    rmSync(root, { recursive: true, force: true });
  });

  it('the replica serves what the writer seeded, a load shows up on it, and the standby takes over', async () => {
    const writerDir = join(root, 'writer');
    const writer = await start(env('writer-a', writerDir, 'writer'));
    expect(writer.demoKey).toMatch(/^cds_/);
    const standby = await start(env('writer-b', writerDir, 'writer'));
    expect(standby.demoKey).toBeNull();
    const api = await start(env('api-1', join(root, 'api-1'), 'api'));
    const key = writer.demoKey!;
    const search = await fetch(`${api.url}/v1/creators/search?limit=1`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(search.status).toBe(200);
    expect(((await search.json()) as { results: number }).results).toBe(300);

    const state = await PgState.open(databaseUrl);
    try {
      const first = (await latestSnapshot(state))!.version;
      // the active writer stops; the standby is elected, opens the same store and publishes again after a load
      await writer.stop();
      running.splice(running.indexOf(writer), 1);
      const list = await fetch(`${api.url}/v1/lists`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'kept' }),
      });
      expect(list.status).toBe(201);
      // the standby holds the writer lock within seconds and answers the admin channel of the shared data folder
      const file = writeCsv(root, 'creators-new.csv', CREATOR_COLUMNS, [
        creatorRow({ platform: 'tiktok', handle: '@cluster_new', followers: 4321 }),
      ]);
      const ingested = await eventually(async () => {
        const reply = await callAdmin(
          testConfig(writerDir).adminSocketPath,
          'pipelines.ingest',
          { files: [file], entity: 'creators' },
          () => undefined,
        );
        expect(reply).toMatchObject({ reached: true });
        expect(reply.reached && reply.error).toBeFalsy();
        return Date.now();
      }, 15_000);
      const profile = await eventually(async () => {
        const res = await fetch(`${api.url}/v1/creators/@cluster_new?platform=tiktok`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(res.status).toBe(200);
        return (await res.json()) as { followers: number };
      }, 15_000);
      expect(profile.followers).toBe(4321);
      expect(Date.now() - ingested).toBeLessThan(10_000);
      expect((await latestSnapshot(state))!.version).toBeGreaterThan(first);
      // the load's run record and change events reached PostgreSQL through the relay
      await eventually(async () => {
        const runs = await state.one<{ n: number }>(
          "SELECT count(*) AS n FROM pipeline_runs WHERE pipeline = 'creators' AND status = 'succeeded'",
        );
        expect(runs?.n).toBeGreaterThanOrEqual(1);
      }, 10_000);
      const lists = await fetch(`${api.url}/v1/lists`, { headers: { authorization: `Bearer ${key}` } });
      expect(((await lists.json()) as { data: Array<{ name: string }> }).data.map((l) => l.name)).toContain('kept');

      // the CLI on an API node (no store there): keys go to PostgreSQL, a load is refused with where to run it
      const nodeEnv = { CDS_DATABASE_URL: databaseUrl, CDS_DATA_DIR: join(root, 'api-1'), CDS_SHARED_DIR: shared };
      const created = await cli(nodeEnv, [
        'keys',
        'create',
        '--account',
        'from-api-node',
        '--plan',
        'enterprise',
        '--json',
      ]);
      expect(created.code).toBe(0);
      const newKey = (JSON.parse(created.stdout) as { key: string }).key;
      expect((await fetch(`${api.url}/v1/account`, { headers: { authorization: `Bearer ${newKey}` } })).status).toBe(
        200,
      );
      const refused = await cli(nodeEnv, ['ingest', file, '--entity', 'creators']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/writer's data folder/);
      expect(existsSync(join(root, 'api-1', 'cds.duckdb'))).toBe(false);
    } finally {
      await state.close();
    }
  });
});

/** The CLI as an operator runs it on a node, with that node's environment. */
function cli(env: Env, args: string[]): Promise<CliResult> {
  return runCli(args, {
    env: { PATH: process.env['PATH'] ?? '', CDS_LOG_LEVEL: 'silent', ...env } as NodeJS.ProcessEnv,
  });
}

async function eventually<T>(check: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
