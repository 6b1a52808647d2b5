import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../data/keys/key.service.js';
import { PgState } from '../../data/state/pg-state.js';
import { readDemoKey, spawnProcess, type ClusterEnv, type ClusterProcess } from '../helpers/cluster-kit.js';
import { creatorRow, CREATOR_COLUMNS, writeCsv } from '../fixtures/pipelines/files.js';
import { runCli } from '../helpers/cli.js';
import { eventually } from '../integration/webhook-fixtures.js';
import { freePort, startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

/**
 * Every role of a cluster as its own `cds start` process (as `npm run cluster`
 * and the deploy/ units run them) on a PostgreSQL of this file's own, which the
 * test restarts the way `pg_ctl -m fast restart` does. Only the active writer
 * may go (its lock session ended); every other process waits, says so, and resumes.
 */
describe('a PostgreSQL restart under every role', () => {
  const root = mkdtempSync(join(tmpdir(), 'cds-pg-restart-'));
  let pg: TestPostgres;
  let receiver: Receiver;
  const procs: Record<string, ClusterProcess> = {};
  const logOf = (name: string): string => {
    const path = join(root, 'logs', `${name}.log`);
    return existsSync(path) ? readFileSync(path, 'utf8') : '';
  };
  const logged = (name: string, text: string, times = 1): Promise<void> =>
    eventually(
      async () => logOf(name).split(text).length > times,
      60_000,
      `${name} to log "${text}"${times > 1 ? ` ${times} times` : ''}`,
    );

  let cluster: ClusterEnv;

  beforeAll(async () => {
    pg = await startTestPostgres();
    receiver = await startReceiver();
    cluster = {
      databaseUrl: pg.url,
      sharedDir: join(root, 'shared'),
      logDir: join(root, 'logs'),
      extra: {
        CDS_DEMO: '1',
        CDS_DEMO_CREATORS: '200',
        CDS_SNAPSHOT_INTERVAL_SECONDS: '1',
        CDS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
        CDS_CURSOR_SECRET: 'pg-restart-test-cursor-secret-0123456789',
        CDS_SECRET_KEY: 'pg-restart-test-secret-key-0123456789abcdef',
      },
    };
    const writerDir = join(root, 'writer');
    procs['writer-a'] = await spawnProcess(cluster, { name: 'writer-a', roles: 'writer', dataDir: writerDir });
    await readDemoKey(writerDir, 120_000);
    procs['writer-b'] = await spawnProcess(cluster, { name: 'writer-b', roles: 'writer', dataDir: writerDir });
    const [api, webhooks, exports] = await Promise.all([
      freePort().then((port) =>
        spawnProcess(cluster, { name: 'api-1', roles: 'api', dataDir: join(root, 'api-1'), port }, 120_000),
      ),
      spawnProcess(cluster, { name: 'webhooks-1', roles: 'webhooks', dataDir: join(root, 'webhooks-1') }),
      spawnProcess(cluster, { name: 'exports-1', roles: 'exports', dataDir: join(root, 'exports-1') }),
    ]);
    Object.assign(procs, { 'api-1': api, 'webhooks-1': webhooks, 'exports-1': exports });
    for (const name of Object.keys(procs)) await logged(name, 'cluster process started');
  }, 180_000);

  afterAll(async () => {
    await Promise.all(Object.values(procs).map((p) => p.stop()));
    await receiver?.close();
    await pg?.cleanup();
    rmSync(root, { recursive: true, force: true });
  });

  it('the active writer steps down, the standby takes over, and the API, webhook and export workers wait and resume', async () => {
    const api = procs['api-1']!.url!;
    await pg.stop();
    // down long enough for every process to notice and say what it waits for
    for (const name of ['writer-b', 'api-1', 'webhooks-1', 'exports-1'])
      await logged(name, 'PostgreSQL is unreachable; waiting for it');
    // meanwhile the replica answers at once: not ready, naming PostgreSQL
    const started = Date.now();
    const ready = await fetch(`${api}/readyz`);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as { detail: string }).detail).toMatch(/shared state \(PostgreSQL\) does not answer/);
    await pg.start();

    // the lock session ended: the active writer exits (its supervisor restarts it as a standby)
    await eventually(async () => !procs['writer-a']!.alive(), 30_000, 'the active writer to step down');
    expect(procs['writer-a']!.child.exitCode).toBe(70);
    await logged('writer-b', 'elected the active writer');
    for (const name of ['writer-b', 'api-1', 'webhooks-1', 'exports-1']) {
      expect(procs[name]!.alive(), `${name} is still running`).toBe(true);
      await logged(name, 'PostgreSQL is reachable again; resuming');
    }

    await eventually(
      async () => (await fetch(`${api}/readyz`)).status === 200,
      30_000,
      'the replica to be ready again',
    );
    const state = await PgState.open(pg.url);
    const key = (await createKey(state, { account: 'after-restart', plan: 'enterprise' }).finally(() => state.close()))
      .key;
    const call = (path: string, body?: unknown): Promise<Response> =>
      fetch(`${api}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });

    // the export worker claims and runs a job after the restart
    const exported = (await (
      await call('/v1/exports', { source: 'search', filters: { sort: '-followers' }, format: 'csv' })
    ).json()) as { id: string };
    await eventually(
      async () =>
        ((await (await call(`/v1/exports/${exported.id}`)).json()) as { status: string }).status === 'succeeded',
      30_000,
      'the export to succeed',
    );
    // the webhook worker delivers after the restart
    const hook = (await (await call('/v1/webhooks', { url: receiver.url, events: ['creator.updated'] })).json()) as {
      id: string;
    };
    expect((await call(`/v1/webhooks/${hook.id}/test`, {})).status).toBe(202);
    await receiver.waitFor(1, 30_000);
    expect(procs['writer-b']!.alive()).toBe(true);
  }, 120_000);

  it('with no active writer the CLI refuses to load, and the next writer takes the inbox at once', async () => {
    const writerDir = join(root, 'writer');
    const file = writeCsv(root, 'creators-late.csv', CREATOR_COLUMNS, [
      creatorRow({ platform: 'tiktok', handle: '@after_failover', followers: 777 }),
    ]);
    for (const name of ['writer-a', 'writer-b']) await procs[name]!.stop();
    const refused = await runCli(['ingest', file, '--entity', 'creators'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        CDS_LOG_LEVEL: 'silent',
        CDS_DATABASE_URL: pg.url,
        CDS_DATA_DIR: writerDir,
        CDS_SHARED_DIR: join(root, 'shared'),
      },
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/no active writer/);

    // dropped in the inbox while no writer runs; a writer starting now loads it without waiting for the minute's tick
    copyFileSync(file, join(writerDir, 'inbox', 'creators-late.csv'));
    procs['writer-c'] = await spawnProcess(cluster, { name: 'writer-c', roles: 'writer', dataDir: writerDir });
    await logged('writer-c', 'elected the active writer');
    const elected = Date.now();
    const state = await PgState.open(pg.url);
    const key = (await createKey(state, { account: 'inbox-check', plan: 'enterprise' }).finally(() => state.close()))
      .key;
    await eventually(
      async () =>
        (
          await fetch(`${procs['api-1']!.url}/v1/creators/@after_failover?platform=tiktok`, {
            headers: { authorization: `Bearer ${key}` },
          })
        ).status === 200,
      15_000,
      'the inbox file to reach the replica',
    );
    // the scheduler's tick is a minute; the inbox settles 2 s and a snapshot follows within a second or two
    expect(Date.now() - elected).toBeLessThan(15_000);
  }, 90_000);

  it('while PostgreSQL is paused readiness answers within a second, requests 503 within their bound, and only the writer steps down', async () => {
    const api = procs['api-1']!.url!;
    const state = await PgState.open(pg.url);
    const key = (await createKey(state, { account: 'paused', plan: 'enterprise' }).finally(() => state.close())).key;
    const lists = (): Promise<Response> => fetch(`${api}/v1/lists`, { headers: { authorization: `Bearer ${key}` } });
    expect((await lists()).status).toBe(200);
    pg.pause();
    try {
      await logged('api-1', 'PostgreSQL is unreachable; waiting for it', 2);
      let started = Date.now();
      const ready = await fetch(`${api}/readyz`);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(ready.status).toBe(503);
      // an open connection that gets no answer is given up after 5 s (a new one after 2 s)
      started = Date.now();
      expect((await lists()).status).toBe(503);
      expect(Date.now() - started).toBeLessThan(7_000);
      // the lock session's heartbeat goes unanswered: the active writer must stop writing
      await eventually(async () => !procs['writer-c']!.alive(), 30_000, 'the active writer to step down');
    } finally {
      pg.resume();
    }
    expect(procs['writer-c']!.child.exitCode).toBe(70);
    await eventually(
      async () => (await fetch(`${api}/readyz`)).status === 200,
      30_000,
      'the replica to be ready again',
    );
    expect((await lists()).status).toBe(200);
    for (const name of ['api-1', 'webhooks-1', 'exports-1'])
      expect(procs[name]!.alive(), `${name} is still running`).toBe(true);
  }, 90_000);
});
