// HTTP load helpers shared by the bench sections that measure an API over real
// sockets: a listener on a free port, a keep-alive GET, a closed-loop load and
// latency percentiles.
import { type Agent, createServer, request, type Server } from 'node:http';
import { Worker } from 'node:worker_threads';
import type { AddressInfo } from 'node:net';
import { percentile } from './stats.js';

export interface Latency {
  p50_ms: number;
  p99_ms: number;
  n: number;
}

/** Listens on a free port of 127.0.0.1; answers the base URL. */
export async function listen(handler: Parameters<typeof createServer>[1], servers: Server[]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes the servers `listen` opened, dropping their keep-alive connections first (a bench must not wait for idle sockets). */
export async function closeServers(servers: readonly Server[]): Promise<void> {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise<void>((r) => s.close(() => r()));
  }
}

/** A GET with the bearer key; resolves with the status when it is 200, rejects otherwise. */
export function httpGet(agent: Agent, url: string, key: string): Promise<number> {
  return new Promise((resolveGet, reject) => {
    const req = request(url, { agent, headers: { Authorization: `Bearer ${key}` } }, (res) => {
      res.on('data', () => undefined);
      res.on('end', () =>
        res.statusCode === 200 ? resolveGet(res.statusCode) : reject(new Error(`${url} answered ${res.statusCode}`)),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** Closed-loop load: `concurrency` clients each sending the next request when the last one answered. */
export async function load(
  concurrency: number,
  seconds: number,
  send: (i: number) => Promise<unknown>,
): Promise<number> {
  const end = performance.now() + seconds * 1000;
  let done = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        await send(next++);
        done += 1;
      }
    }),
  );
  return Math.round(done / ((performance.now() - started) / 1000));
}

/** The load client of `loadFromWorker`, run in a worker thread (plain JavaScript: a worker evaluates it as given). */
const WORKER_CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const { base, key, paths, concurrency, seconds } = workerData;
const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
const get = (path) => new Promise((resolve, reject) => {
  const req = http.request(base + path, { agent, headers: { Authorization: 'Bearer ' + key } }, (res) => {
    res.on('data', () => undefined);
    res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(path + ' answered ' + res.statusCode))));
  });
  req.on('error', reject);
  req.end();
});
(async () => {
  const started = performance.now();
  const end = started + seconds * 1000;
  let done = 0;
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      await get(paths[next++ % paths.length]);
      done += 1;
    }
  }));
  agent.destroy();
  parentPort.postMessage({ rps: Math.round(done / ((performance.now() - started) / 1000)), sent: next });
})().catch((error) => parentPort.postMessage({ error: String(error) }));
`;

/**
 * Closed-loop load as `load` does it, from a worker thread: the client's own
 * work (building requests, parsing answers) runs beside the server's thread,
 * not on it, as a load generator on another machine would. `paths` are sent
 * in order (each once while there are more of them than requests).
 */
export async function loadFromWorker(
  base: string,
  key: string,
  paths: readonly string[],
  concurrency: number,
  seconds: number,
): Promise<{ rps: number; sent: number }> {
  const worker = new Worker(WORKER_CLIENT, { eval: true, workerData: { base, key, paths, concurrency, seconds } });
  try {
    const answer = await new Promise<{ rps: number; sent: number; error?: string }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    if (answer.error) throw new Error(answer.error);
    return { rps: answer.rps, sent: answer.sent };
  } finally {
    await worker.terminate();
  }
}

/** How long `fn` took, in ms. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

/** p50 and p99 of the times (ms). */
export function latency(times: number[]): Latency {
  const at = (q: number): number => round(percentile(times, q, 0));
  return { p50_ms: at(0.5), p99_ms: at(0.99), n: times.length };
}

export function round(v: number): number {
  return Math.round(v * 100) / 100;
}
