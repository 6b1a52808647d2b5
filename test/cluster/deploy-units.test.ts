import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createKey } from '../../data/keys/key.service.js';
import { PgState } from '../../data/state/pg-state.js';
import { creatorRow, CREATOR_COLUMNS, writeCsv } from '../fixtures/pipelines/files.js';
import { runCli } from '../helpers/cli.js';
import { freePort } from '../helpers/postgres.js';
import { createTestDatabase } from '../helpers/state.js';
import { eventually } from '../integration/webhook-fixtures.js';

const ROOT = resolve(import.meta.dirname, '../..');
const DEPLOY = join(ROOT, 'deploy');
const UNITS = readdirSync(join(DEPLOY, 'systemd')).filter((f) => f.endsWith('.service'));

/** `KEY=value` lines of an environment file (comments and blanks left out). */
function envFile(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** The `Environment=` settings of a unit, with its specifiers filled in. */
function unitEnv(unit: string, instance: string): Record<string, string> {
  const text = readFileSync(join(DEPLOY, 'systemd', unit), 'utf8');
  return envFile(
    [...text.matchAll(/^Environment=(.*)$/gm)]
      .map((m) => m[1]!.replaceAll('%i', instance).replaceAll('%H', hostname()))
      .join('\n'),
  );
}

function which(command: string): string | null {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter))
    if (existsSync(join(dir, command))) return join(dir, command);
  return null;
}

describe('deploy/: the units, the Compose file and the Kubernetes manifests', () => {
  it('every systemd unit restarts its process always and passes systemd-analyze verify', async () => {
    expect(UNITS.sort()).toEqual([
      'cds-api@.service',
      'cds-exports.service',
      'cds-webhooks.service',
      'cds-writer.service',
    ]);
    const verify = which('systemd-analyze');
    const dir = mkdtempSync(join(tmpdir(), 'cds-units-'));
    try {
      for (const unit of UNITS) {
        const text = readFileSync(join(DEPLOY, 'systemd', unit), 'utf8');
        expect(text, unit).toMatch(/^Restart=always$/m);
        expect(text, unit).toMatch(/^EnvironmentFile=\/etc\/cds\/cds\.env$/m);
        // a template is verified as one of its instances
        const named = join(dir, unit.replace('@.', '@8080.'));
        copyFileSync(join(DEPLOY, 'systemd', unit), named);
        if (verify) {
          const result = await new Promise<{ code: number; stderr: string }>((r) =>
            execFile(verify, ['verify', '--man=no', named], (error, _out, stderr) =>
              r({ code: error ? Number(error.code ?? 1) : 0, stderr }),
            ),
          );
          expect(result, unit).toEqual({ code: 0, stderr: '' });
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the Compose file and the Kubernetes manifests run every role, restart them, and probe the API replicas', () => {
    const compose = parse(readFileSync(join(DEPLOY, 'compose.yaml'), 'utf8'), { merge: true }) as {
      services: Record<
        string,
        { restart?: string; environment?: Record<string, string>; healthcheck?: { test: string[] } }
      >;
    };
    const roles = Object.values(compose.services)
      .map((s) => s.environment?.['CDS_ROLES'])
      .filter(Boolean)
      .sort();
    expect(roles).toEqual(['api', 'api', 'exports', 'webhooks', 'writer', 'writer']);
    for (const [name, s] of Object.entries(compose.services)) expect(s.restart, name).toBe('always');
    expect(compose.services['api-1']?.healthcheck?.test.join(' ')).toMatch(/\/readyz/);

    const docs = readFileSync(join(DEPLOY, 'k8s', 'cds.yaml'), 'utf8')
      .split(/^---$/m)
      .map((d) => parse(d) as K8sDoc);
    const settings = docs.find((d) => d.kind === 'ConfigMap')!;
    expect(settings.data?.['CDS_DEMO']).toBe('0');
    const deployments = new Map(
      docs.filter((d) => d.kind === 'Deployment').map((d) => [d.metadata.name, d.spec!.template!.spec.containers[0]!]),
    );
    expect([...deployments.keys()].sort()).toEqual(['cds-api', 'cds-exports', 'cds-webhooks', 'cds-writer']);
    const api = deployments.get('cds-api')!;
    expect(api.readinessProbe?.httpGet.path).toBe('/readyz');
    expect(api.livenessProbe?.httpGet.path).toBe('/healthz');
    expect(envFile(readFileSync(join(DEPLOY, 'cds.env.example'), 'utf8'))['CDS_DEMO']).toBe('0');
  });
});

interface K8sProbe {
  httpGet: { path: string };
}
interface K8sDoc {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: { template?: { spec: { containers: Array<{ readinessProbe?: K8sProbe; livenessProbe?: K8sProbe }> } } };
}

/**
 * A cluster started the way the systemd units start it, not with the dev helper:
 * each unit's own environment over the shared cds.env (production settings: no
 * demo data), the folders moved under a temp dir, the database a test one.
 */
describe("a cluster from the systemd units' environment", () => {
  const root = mkdtempSync(join(tmpdir(), 'cds-units-cluster-'));
  const children: ChildProcess[] = [];
  let databaseUrl = '';
  let closeState: () => Promise<void> = async () => undefined;
  let port = 0;
  const envOf = (unit: string, instance = ''): Record<string, string> => {
    const shared = envFile(readFileSync(join(DEPLOY, 'cds.env.example'), 'utf8'));
    const env = { ...shared, ...unitEnv(unit, instance), CDS_DATABASE_URL: databaseUrl, HOST: '127.0.0.1' };
    return Object.fromEntries(
      Object.entries(env).map(([k, v]) => [
        k,
        v.replace(/^\/srv\/cds/, join(root, 'srv')).replace(/^\/var\/lib\/cds/, join(root, 'var')),
      ]),
    );
  };
  const start = (unit: string, instance = ''): ChildProcess => {
    const env = envOf(unit, instance);
    mkdirSync(env['CDS_DATA_DIR']!, { recursive: true });
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'cds.mjs'), 'start'], {
      cwd: ROOT,
      stdio: 'ignore',
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    });
    children.push(child);
    return child;
  };

  beforeAll(async () => {
    ({ databaseUrl, close: closeState } = await createTestDatabase());
    port = await freePort();
  });

  afterAll(async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((r) => {
            if (c.exitCode !== null || c.signalCode !== null) return r();
            c.once('exit', () => r());
            c.kill('SIGTERM');
          }),
      ),
    );
    await closeState();
    rmSync(root, { recursive: true, force: true });
  }, 60_000);

  it('starts with no demo data; a file loaded through the writer shows on the replica', async () => {
    start('cds-writer.service');
    const api = `http://127.0.0.1:${port}`;
    start('cds-api@.service', String(port));
    start('cds-webhooks.service');
    start('cds-exports.service');
    await eventually(
      async () =>
        (await fetch(`${api}/readyz`).then(
          (r) => r.status,
          () => 0,
        )) === 200,
      90_000,
      'the API replica to be ready',
    );

    const writer = envOf('cds-writer.service');
    const file = writeCsv(root, 'creators-prod.csv', CREATOR_COLUMNS, [
      creatorRow({ platform: 'youtube', handle: '@from_units', followers: 4242 }),
    ]);
    const ingested = await runCli(['ingest', file, '--entity', 'creators'], {
      env: { PATH: process.env['PATH'] ?? '', ...writer, CDS_LOG_LEVEL: 'silent' },
    });
    expect(ingested.stderr).toMatch(/in the running server/);
    expect(ingested.code).toBe(0);
    const state = await PgState.open(databaseUrl);
    const key = (await createKey(state, { account: 'units', plan: 'enterprise' }).finally(() => state.close())).key;
    const search = async (): Promise<{ results: number }> =>
      (
        await fetch(`${api}/v1/creators/search?limit=5`, { headers: { authorization: `Bearer ${key}` } })
      ).json() as Promise<{ results: number }>;
    await eventually(async () => (await search()).results === 1, 60_000, 'the load to reach the replica');
    for (const c of children) expect(c.exitCode).toBeNull();
  }, 150_000);
});
