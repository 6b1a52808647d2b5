// One search-scale workload under load, in one process, with the server's CPU
// profile if asked: opens a search-scale store (its index files beside it) as
// the bench does, warms up with 300 requests, then runs the bench's closed loop
// of 50 connections for 10 s and prints the searches a second and the process's
// CPU time per request (the client's thread included).
//   node --max-old-space-size=16000 bin/run-ts.mjs bench/search-load.ts <store folder> [workload] [profile file]
// e.g. bench/work/search-scale/creators-10000000 mixed /tmp/mixed.cpuprofile (docs/search.md, "The bit-array kernel").
import { writeFileSync } from 'node:fs';
import { Agent, type Server } from 'node:http';
import { Session } from 'node:inspector/promises';
import { testConfig } from '../config/config.js';
import { createKey } from '../data/keys/key.service.js';
import { Store } from '../data/store.js';
import { closeServers, loadFromWorker } from './http-load.js';
import { generator, STORE_MEMORY_LIMIT, startSearchServer, toQuery, type WorkloadName } from './search-scale.bench.js';

const [dir, workload = 'mixed', profileFile] = process.argv.slice(2) as [string, WorkloadName, string?];
if (!dir) throw new Error('usage: search-load.ts <store folder> [workload] [profile file]');
const size = Number(/creators-(\d+)/.exec(dir)?.[1] ?? 0);
const config = testConfig(dir, { CDS_LOG_LEVEL: 'silent', CDS_DUCKDB_MEMORY_LIMIT: STORE_MEMORY_LIMIT });
const store = await Store.open(config.dbPath, { poolSize: 6, memoryLimit: config.duckdb.memoryLimit });
const servers: Server[] = [];
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
let app: Awaited<ReturnType<typeof startSearchServer>>['app'] | null = null;
try {
  const key = (await createKey(store, { account: 'bench-search-load', plan: 'enterprise', scopes: ['read'] })).key;
  const server = await startSearchServer(store, config, key, servers, agent);
  app = server.app;
  const { base, get } = server;
  await app.settle();
  const warm = generator(workload, size, 3);
  for (let i = 0; i < 300; i++) await get(`/v1/creators/search?${toQuery(warm())}`);
  // the bench's own load: unique requests of the workload
  const next = generator(workload, size, 99);
  const paths = Array.from({ length: 40_000 }, () => `/v1/creators/search?${toQuery(next())}`);
  const session = profileFile ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const cpu = process.cpuUsage();
  const { rps, sent } = await loadFromWorker(base, key, paths, 50, 10);
  const used = process.cpuUsage(cpu);
  console.log(
    `${workload} at ${size.toLocaleString('en-US')}: ${rps} req/s at 50 connections (${sent} sent), ` +
      `${((used.user + used.system) / 1000 / sent).toFixed(2)} ms of CPU per request (all threads)`,
  );
  if (session && profileFile) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(profileFile, JSON.stringify(profile));
    session.disconnect();
  }
} finally {
  agent.destroy();
  await closeServers(servers);
  await app?.settle();
  await store.close();
}
