import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/postgres.js';
import { eventually } from '../integration/webhook-fixtures.js';

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * `npm run cluster` as a developer runs it, with settings of the caller's own:
 * every role its own process, supervised, sharing one cursor secret.
 */
describe('npm run cluster', () => {
  const root = mkdtempSync(join(tmpdir(), 'cds-dev-cluster-'));
  // as root, PostgreSQL runs as the `postgres` user, which must reach its folder inside this one
  chmodSync(root, 0o755);
  let parent: ChildProcess;
  let output = '';
  let base = 0;

  beforeAll(async () => {
    base = await freePort();
    parent = spawn(process.execPath, [join(ROOT, 'bin', 'run-ts.mjs'), 'tools/cluster.ts', root, String(base)], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '',
        CDS_DEMO_CREATORS: '150',
        CDS_SNAPSHOT_INTERVAL_SECONDS: '1',
      },
    });
    parent.stdout?.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    parent.stderr?.on('data', (c: Buffer) => {
      output += c.toString('utf8');
    });
    await eventually(
      async () => output.includes('cluster is ready') || parent.exitCode !== null,
      240_000,
      'the cluster banner',
    );
    if (!output.includes('cluster is ready')) throw new Error(`npm run cluster did not start:\n${output}`);
  }, 260_000);

  afterAll(async () => {
    if (parent && parent.exitCode === null) {
      const exited = new Promise((r) => parent.once('exit', r));
      parent.kill('SIGINT');
      await exited;
    }
    rmSync(root, { recursive: true, force: true });
  }, 120_000);

  it("passes the caller's settings, shares one cursor secret, prints the banner once all roles run, and restarts a crashed process", async () => {
    // the banner comes after every process said it started
    const banner = output.indexOf('cluster is ready');
    for (const name of ['writer-a', 'writer-b', 'api-1', 'api-2', 'webhooks-1', 'exports-1']) {
      expect(readFileSync(join(root, 'logs', `${name}.log`), 'utf8')).toContain('cluster process started');
    }
    expect(output.slice(0, banner)).not.toMatch(/\[supervisor\]/);
    const key = /Demo API key: +(\S+)/.exec(output)?.[1];
    expect(key).toBeDefined();
    const get = async (port: number, path: string): Promise<Response> =>
      fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: `Bearer ${key}` } });

    // CDS_DEMO_CREATORS=150 reached the writer that seeded
    const first = await get(base, '/v1/creators/search?limit=2');
    const page = (await first.json()) as { results: number; next_cursor: string };
    expect(page.results).toBe(150);
    // a cursor from one replica is accepted by the other
    expect(
      (await get(base + 1, `/v1/creators/search?limit=2&cursor=${encodeURIComponent(page.next_cursor)}`)).status,
    ).toBe(200);

    // a worker killed outright is started again, and the restart is logged
    process.kill(pidOf('webhooks-1', join(root, 'shared')), 'SIGKILL');
    await eventually(
      async () => /webhooks-1 exited \(signal SIGKILL\); restarting in/.test(output),
      30_000,
      'the supervisor to see the crash',
    );
    await eventually(async () => output.includes('webhooks-1 restarted (restart 1)'), 60_000, 'the restart');
  }, 120_000);
});

/** The pid of the cluster process named `name` whose shared folder is `shared` (read from /proc). */
function pidOf(name: string, shared: string): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let environ = '';
    try {
      environ = readFileSync(`/proc/${entry}/environ`, 'utf8');
    } catch {
      continue; // gone, or not ours to read
    }
    const vars = environ.split('\0');
    if (vars.includes(`CDS_INSTANCE_NAME=${name}`) && vars.includes(`CDS_SHARED_DIR=${shared}`)) return Number(entry);
  }
  throw new Error(`no process named ${name} runs`);
}
