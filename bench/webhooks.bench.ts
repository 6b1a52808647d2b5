// Webhook delivery throughput and latency against a local receiver, and from an ingested change to its delivery.
// Standalone: node bin/run-ts.mjs bench/webhooks.bench.ts [deliveries]
import { Agent, request } from 'node:http';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { testConfig } from '../config/config.js';
import {
  DeliveryWorker,
  deliveryBody,
  newSecret,
  signedHeaders,
  webhookWorkerOptions,
} from '../connectors/webhooks/index.js';
import { newId } from '../data/ids.js';
import { ensureDemoAccount } from '../data/seed/demo-account.js';
import { seedDemoData } from '../data/seed/demo-generator.js';
import type { Store } from '../data/store.js';
import { openBenchStore } from './bench-store.js';
import { ingestFiles } from '../pipelines/ingest.service.js';
import { listenOnLoopback } from '../test/helpers/drill-kit.js';
import { percentile } from './stats.js';
import { CREATOR_FILE_COLUMNS } from '../pipelines/entities/source-entities.js';

export interface WebhooksBenchResult {
  deliveries: number;
  concurrency: number;
  /** Bare fetch (undici) POST loop of the same signed payloads (mean of a run before and one after the worker's). */
  fetchPerSec: number;
  /** Bare node:http keep-alive POST loop, the transport the worker uses. */
  nodeHttpPerSec: number;
  /** The delivery worker end to end: outbox → fan-out → claim → signed POST → attempt recorded. */
  workerPerSec: number;
  ratioToFetch: number;
  ratioToBest: number;
  /** Event written → received by the receiver, worker idle and polling at its default interval. */
  latencyMs: { p50: number; p99: number; samples: number };
  /** A one-creator CSV ingested (`cds ingest` path: pipeline run, diff, outbox) → its creator.updated received. */
  ingestLatencyMs: { p50: number; p99: number; samples: number };
}

const CONCURRENCY = 50;

/** Measures deliveries/s of the worker against bare POST loops in the same run, and event-to-delivery latency. */
export async function webhooksBench(
  options: { deliveries?: number; latencySamples?: number; ingestSamples?: number } = {},
): Promise<WebhooksBenchResult> {
  const n = options.deliveries ?? 20_000;
  const receiver = await startCountingReceiver();
  const dir = mkdtempSync(join(tmpdir(), 'cds-bench-webhooks-'));
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    const secret = newSecret();
    const bodies = Array.from({ length: n }, (_, i) =>
      deliveryBody('creator.updated', new Date(), JSON.stringify({ i, handle: `@c${i}` })),
    );
    // The bare loops run half before and half after the worker, so a machine whose load drifts during the
    // run weighs on both sides of the ratio alike.
    const baseline = async () => ({
      fetch: await loopRate(Math.ceil(n / 2), (i) => postFetch(receiver.url, secret, bodies[i]!)),
      node: await loopRate(Math.ceil(n / 2), (i) => postNodeHttp(receiver.url, secret, bodies[i]!, agent)),
    });
    const before = await baseline();
    const config = testConfig(dir, { CDS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
    const store = await openBenchStore(config.dbPath);
    try {
      // The demo data runs up to yesterday, so an ingested row stamped now is newer (and not in the future).
      const demoAccountId = (await ensureDemoAccount(store)).account_id;
      await seedDemoData(store, {
        creators: 200,
        seed: 7,
        asOf: new Date(Date.now() - 86_400_000).toISOString().slice(0, 10),
        demoAccountId,
      });
      await store.run(
        `INSERT INTO webhook_subscriptions (webhook_id, account_id, url, events, secret, created_at, updated_at)
        VALUES (?, 'acct_bench', ?, ['*'], ?, now()::TIMESTAMP, now()::TIMESTAMP)`,
        [newId('whk'), receiver.url, secret],
      );
      const workerPerSec = await workerRate(store, config, receiver, n);
      const after = await baseline();
      const fetchPerSec = (before.fetch + after.fetch) / 2;
      const nodeHttpPerSec = (before.node + after.node) / 2;
      const latencyMs = await latency(store, config, receiver, options.latencySamples ?? 200);
      const ingestLatencyMs = await ingestLatency(
        store,
        config,
        receiver,
        dir,
        options.ingestSamples ?? Math.min(30, options.latencySamples ?? 30),
      );
      return {
        deliveries: n,
        concurrency: CONCURRENCY,
        fetchPerSec,
        nodeHttpPerSec,
        workerPerSec,
        ratioToFetch: workerPerSec / fetchPerSec,
        ratioToBest: workerPerSec / Math.max(fetchPerSec, nodeHttpPerSec),
        latencyMs,
        ingestLatencyMs,
      };
    } finally {
      await store.close();
    }
  } finally {
    agent.destroy();
    await receiver.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface CountingReceiver {
  url: string;
  count: number;
  onBody: ((body: string) => void) | null;
  close(): Promise<void>;
}

async function startCountingReceiver(): Promise<CountingReceiver> {
  const state: CountingReceiver = { url: '', count: 0, onBody: null, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      state.count++;
      state.onBody?.(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-length': '0' }).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  const listening = await listenOnLoopback(server);
  state.url = `${listening.origin}/hook`;
  state.close = listening.close;
  return state;
}

function headersFor(secret: string, body: string): Record<string, string> {
  return {
    ...signedHeaders([secret], newId('dlv'), Math.floor(Date.now() / 1000), body),
    'content-type': 'application/json',
  };
}

async function postFetch(url: string, secret: string, body: string): Promise<void> {
  const res = await fetch(url, { method: 'POST', body, headers: headersFor(secret, body), redirect: 'manual' });
  await res.arrayBuffer();
}

function postNodeHttp(url: string, secret: string, body: string, agent: Agent): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { ...headersFor(secret, body), 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.once('end', resolve);
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

/** Runs `n` calls with CONCURRENCY in flight; answers calls per second. */
async function loopRate(n: number, call: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) await call(next++);
    }),
  );
  return n / ((performance.now() - started) / 1000);
}

async function workerRate(
  store: Store,
  config: ReturnType<typeof testConfig>,
  receiver: CountingReceiver,
  n: number,
): Promise<number> {
  await store.run(
    `INSERT INTO events (event_id, type, account_id, payload)
    SELECT 'evt_bench' || i, 'export.completed', 'acct_bench', json_object('i', i) FROM range(?) t(i)`,
    [n],
  );
  const worker = new DeliveryWorker(
    store,
    webhookWorkerOptions(config, { maxInFlight: CONCURRENCY, perEndpoint: CONCURRENCY, pollMs: 100 }),
  );
  const before = receiver.count;
  const started = performance.now();
  worker.start();
  for (;;) {
    const row = await store.one<{ n: number }>("SELECT count(*) AS n FROM deliveries WHERE status = 'succeeded'");
    if ((row?.n ?? 0) >= n) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  if (receiver.count - before < n) throw new Error(`receiver got ${receiver.count - before} of ${n}`);
  return n / seconds;
}

async function latency(
  store: Store,
  config: ReturnType<typeof testConfig>,
  receiver: CountingReceiver,
  samples: number,
): Promise<WebhooksBenchResult['latencyMs']> {
  const worker = new DeliveryWorker(store, webhookWorkerOptions(config));
  const seen: number[] = [];
  receiver.onBody = (body) => {
    const sent = (JSON.parse(body) as { data: { sent?: number } }).data.sent;
    if (sent !== undefined) seen.push(performance.timeOrigin + performance.now() - sent);
  };
  worker.start();
  for (let i = 0; i < samples; i++) {
    await store.run(
      `INSERT INTO events (event_id, type, account_id, payload) VALUES (?, 'export.completed', 'acct_bench', ?::JSON)`,
      [newId('evt'), JSON.stringify({ sent: performance.timeOrigin + performance.now() })],
    );
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
  }
  const until = Date.now() + 10_000;
  while (seen.length < samples && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  await worker.stop();
  receiver.onBody = null;
  return percentiles(seen);
}

function percentiles(values: readonly number[]): { p50: number; p99: number; samples: number } {
  const pick = (q: number) => Math.round(percentile(values, q) * 10) / 10;
  return { p50: pick(0.5), p99: pick(0.99), samples: values.length };
}

/** Ingests one changed creator per sample through the pipeline and times it to the receiver. */
async function ingestLatency(
  store: Store,
  config: ReturnType<typeof testConfig>,
  receiver: CountingReceiver,
  dir: string,
  samples: number,
) {
  const creators = await store.all<Record<string, unknown>>(
    `SELECT ${CREATOR_CSV_COLUMNS.join(', ')} FROM creators ORDER BY creator_id LIMIT ?`,
    [samples],
  );
  const startedAt = new Map<string, number>();
  const seen: number[] = [];
  receiver.onBody = (body) => {
    const event = JSON.parse(body) as { type: string; data: { platform?: string; handle?: string } };
    const t0 = startedAt.get(`${event.data.platform}/${event.data.handle}`);
    if (event.type === 'creator.updated' && t0 !== undefined) seen.push(performance.now() - t0);
  };
  const worker = new DeliveryWorker(store, webhookWorkerOptions(config));
  worker.start();
  for (const [i, c] of creators.entries()) {
    const file = join(dir, `creators-bench-${i}.csv`);
    const row: Record<string, unknown> = {
      ...c,
      followers: Number(c['followers']) + 1000 + i,
      updated_at: new Date(Date.now() - 1000).toISOString(),
    };
    writeFileSync(
      file,
      `${CREATOR_CSV_COLUMNS.join(',')}\n${CREATOR_CSV_COLUMNS.map((k) => csvCell(row[k])).join(',')}\n`,
    );
    startedAt.set(`${String(c['platform'])}/${String(c['handle'])}`, performance.now());
    await ingestFiles({ store, config }, [file], 'creators');
  }
  const until = Date.now() + 10_000;
  while (seen.length < creators.length && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  await worker.stop();
  receiver.onBody = null;
  return percentiles(seen);
}

const CREATOR_CSV_COLUMNS = CREATOR_FILE_COLUMNS;

function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const text = String(v);
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const deliveries = process.argv[2] ? Number(process.argv[2]) : undefined;
  const result = await webhooksBench({ deliveries });
  console.log(JSON.stringify(result, null, 2));
}
