// `npm run drill:cluster` — a cluster of real processes on loopback (PostgreSQL,
// an active and a standby writer sharing one data folder, three API replicas,
// two webhook and two export workers) under a mixed load spread round-robin
// over the replicas, while creators files are ingested through the writer.
// During the load: kill -9 of an API replica (25 %), a webhook worker (50 %) and
// the active writer (75 %). Then, under more load, PostgreSQL is restarted and
// paused (30 s), with two supervised standby writers and every replica's /readyz
// probed throughout. Then: no 5xx (a 503 is sent again, as a client does), no
// lost writes on any surviving replica, every relayed event delivered, no attempt
// sent twice at once, the standby took over, exactly one active writer and every
// worker running after the PostgreSQL faults, /readyz within 1 s throughout, the
// rate limit holds across replicas. Exits 1 on any FAIL.
// Flags: --requests N (5000) --concurrency C (16) --creators N (5000) --pause-seconds S (30) --keep --record
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PLAN_LIMITS } from '../data/plans/plans.js';
import { prng } from '../core/prng.js';
import {
  readDemoKey,
  spawnProcess,
  startLocalPostgres,
  type ClusterEnv,
  type ClusterProcess,
} from '../test/helpers/cluster-kit.js';
import {
  checkDeliveries,
  checkExports,
  checkIngested,
  checkRelay,
  checkSharedRateLimit,
  checkWrites,
  processOnPort,
  startTimedReceiver,
  WRITER_LOCK,
  writerLockHolder,
  type LockHolder,
} from './drill-cluster-checks.js';
import { postgresFaults, READY_BOUND_MS, watchReadiness } from './drill-cluster-pg.js';
import { supervise, type Supervised } from './cluster-supervisor.js';
import { creatorPool } from './drill-load-workload.js';
import { Balancer, oneRequest, prepareUpdates, type Client, type Workload } from './drill-cluster-workload.js';
import { call, Checks, cds, createKey, eventually, freePort, percentile } from '../test/helpers/drill-kit.js';
import { drillArgs, finishDrill, LOAD_OPTIONS } from './drill-record.js';

const values = drillArgs({ ...LOAD_OPTIONS, 'pause-seconds': { type: 'string' } });
const REQUESTS = Number(values.requests ?? 5000);
const CONCURRENCY = Number(values.concurrency ?? 16);
const CREATORS = Number(values.creators ?? 5000);
/** How long PostgreSQL is paused mid-load. */
const PAUSE_MS = Number(values['pause-seconds'] ?? 30) * 1000;
/** The receiver answers after this long, so the webhook worker killed mid-delivery has sends in flight. */
const RECEIVER_DELAY_MS = 500;
/** The whole drill, setup to cleanup; past it the processes are killed and the drill fails. */
const DEADLINE_MS = 18 * 60_000;

const checks = new Checks();
const say = (line: string): void => checks.info(line);
const dir = mkdtempSync(join(tmpdir(), 'cds-drill-cluster-'));
// PostgreSQL runs as its own system user when the drill runs as root: the folder must be traversable.
chmodSync(dir, 0o755);
const writerDir = join(dir, 'writer');
const cliEnv = (url: string): Record<string, string> => ({
  CDS_DATABASE_URL: url,
  CDS_DATA_DIR: writerDir,
  CDS_LOG_LEVEL: 'warn',
});
const processes: ClusterProcess[] = [];
/** Writers started under supervision for the PostgreSQL faults (restarted when they step down). */
const supervised: Supervised[] = [];
/** Requests handed out so far (the kill points are shares of them). */
let sent = 0;
let balancer: Balancer | null = null;
let loadSeconds = 0;
let failover: { failoverMs: number; readyMs: number; lagMs: number } | null = null;
const receiver = await startTimedReceiver(RECEIVER_DELAY_MS);
say(
  `cluster drill: ${REQUESTS} requests, ${CONCURRENCY} clients, ${CREATORS} demo creators, data in ${dir}; load average ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`,
);
let t = Date.now();
const postgres = await startLocalPostgres(join(dir, 'postgres'), { fresh: true, durable: true });
let db = await connectDb();
say(`PostgreSQL ready in ${((Date.now() - t) / 1000).toFixed(1)} s`);
const watchdog = setTimeout(() => void abort(), DEADLINE_MS);
/** The drill's own connection; a PostgreSQL restart ends it, and the drill connects again. */
async function connectDb(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: postgres.url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}
try {
  const cluster: ClusterEnv = {
    databaseUrl: postgres.url,
    sharedDir: join(dir, 'shared'),
    logDir: join(dir, 'logs'),
    extra: {
      CDS_DEMO_CREATORS: String(CREATORS),
      CDS_SNAPSHOT_INTERVAL_SECONDS: '2',
      CDS_WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
      CDS_WEBHOOK_RETRY_SCHEDULE: '1,1,2,2,3',
      CDS_LOG_LEVEL: 'warn',
      CDS_DUCKDB_THREADS: '1',
      // A killed worker's claims come back when their lease (4 × timeout + 30 s) runs out: 50 s instead of 90 s.
      CDS_WEBHOOK_TIMEOUT_MS: '5000',
    },
  };
  t = Date.now();
  const writerA = await start(cluster, 'writer-a', 'writer', writerDir);
  const demoKey = await readDemoKey(writerDir, 300_000);
  const writerB = await start(cluster, 'writer-b', 'writer', writerDir);
  const apis = await Promise.all(
    [1, 2, 3].map(async (i) => start(cluster, `api-${i}`, 'api', join(dir, `api-${i}`), await freePort())),
  );
  const hooks = [
    await start(cluster, 'webhooks-1', 'webhooks', join(dir, 'webhooks-1')),
    await start(cluster, 'webhooks-2', 'webhooks', join(dir, 'webhooks-2')),
  ];
  await start(cluster, 'exports-1', 'exports', join(dir, 'exports-1'));
  await start(cluster, 'exports-2', 'exports', join(dir, 'exports-2'));
  say(
    `cluster of ${processes.length} processes ready in ${((Date.now() - t) / 1000).toFixed(1)} s (writer seeded ${CREATORS} creators)`,
  );
  const firstHolder = await writerLockHolder(db);
  const firstName = await holderName(firstHolder);
  checks.check(
    'setup: writer-a holds the writer lock, writer-b stands by',
    firstName === 'writer-a' && writerB.alive(),
    `holder: ${firstName} (backend pid ${firstHolder?.pid ?? '-'}, '${firstHolder?.app ?? ''}')`,
  );

  // Keys: no API creates them; the CLI sends `keys create` to the active writer's admin socket in its data folder.
  let keyError = '';
  const accounts = Math.max(1, Math.ceil(REQUESTS / 1000));
  const keys = await Promise.all(
    Array.from({ length: accounts }, (_, i) => createKey(cliEnv(postgres.url), i === 0 ? 'drill' : `drill-${i + 1}`)),
  ).catch((error: unknown) => {
    keyError = error instanceof Error ? error.message : String(error);
    return [];
  });
  checks.check(
    "setup: enterprise keys created through the CLI (the writer's admin socket)",
    keys.length === accounts && keys.every((k) => k.key.startsWith('cds_')),
    keyError.trim().slice(0, 300) ||
      `${keys.length} accounts (rate limits are per account: ${PLAN_LIMITS.enterprise.requestsPerMinute}/min each)`,
  );
  if (keys.length !== accounts) throw new Error(`cannot go on without keys: ${keyError.trim().slice(0, 300)}`);
  const drillKey = keys[0]!;
  const urls = apis.map((a) => a.url as string);
  const pool = await creatorPool(urls[0] as string, drillKey.key);
  const sub = await call(urls[1] as string, drillKey.key, 'POST', '/v1/webhooks', {
    url: receiver.url,
    events: ['*'],
    description: 'cluster drill',
  });
  const hookId = (sub.body as { id?: string } | null)?.id ?? '';
  const afterSeq = Number(
    (await db.query<{ seq: string }>('SELECT coalesce(max(seq), 0) AS seq FROM events')).rows[0]?.seq ?? 0,
  );
  checks.check(
    'setup: creators found and a webhook subscription for every event on a local receiver',
    pool.length >= 200 && sub.status === 201,
    `${pool.length} creators in the pool; subscription ${sub.status} ${hookId}`,
  );
  const limiter = await limiterInUse();
  await checkSharedRateLimit(checks, urls, demoKey, PLAN_LIMITS.entry.requestsPerMinute, limiter);

  const updates = await prepareUpdates(urls[0] as string, drillKey.key, pool, join(dir, 'updates'));
  const inbox = join(writerDir, 'inbox');
  mkdirSync(inbox, { recursive: true });
  const lb = new Balancer(urls);
  balancer = lb;
  const work: Workload = { lb, pool, random: prng(20261123) };
  const clients: Client[] = Array.from({ length: CONCURRENCY }, (_, i) => ({
    key: keys[i % keys.length]!.key,
    lists: new Map(),
    exports: new Map(),
  }));
  const ingests: Array<Promise<{ code: number | null; stderr: string; stdout: string }>> = [];
  const at = (share: number) => Math.max(1, Math.floor(share * REQUESTS));
  let hookKill: Promise<void> = Promise.resolve();
  const probe = async () =>
    (await call(urls[0] as string, drillKey.key, 'GET', '/v1/creators/clusterdrill_3_0?platform=instagram')).status ===
    200;
  const writerKill: { done: ReturnType<typeof killWriter> | null } = { done: null };
  const events: Array<[number, () => void]> = [
    [
      at(0.1),
      () => {
        ingests.push(ingestFile(updates.files[0] as string));
      },
    ],
    [
      at(0.25),
      () => {
        void apis[1]!.kill9().then(() => say(`kill -9 ${apis[1]!.name} at request ${at(0.25)}`));
      },
    ],
    [at(0.35), () => renameSync(updates.files[1] as string, join(inbox, 'creators-cluster-1.csv'))],
    [
      at(0.5),
      () => {
        ingests.push(ingestFile(updates.files[2] as string));
        hookKill = killDuringDeliveries(hooks);
      },
    ],
    [
      at(0.75),
      () => {
        writerKill.done = killWriter(writerA, ingests, inbox, updates.files[3] as string, probe);
      },
    ],
  ];
  t = Date.now();
  await Promise.all(
    clients.map(async (c) => {
      while (sent < REQUESTS) {
        const n = ++sent;
        for (const [when, fire] of events) if (when === n) fire();
        await oneRequest(work, c);
      }
    }),
  );
  const seconds = (Date.now() - t) / 1000;
  loadSeconds = seconds;
  say(`load average (1 min) at the end of the load: ${loadavg()[0]?.toFixed(1)} on ${cpus().length} cores`);
  summarise(lb, seconds);
  await hookKill;
  const killed = await writerKill.done;
  failover = killed;

  // What the clients saw.
  const statuses = totalStatuses(lb);
  const fivexx = Object.entries(statuses)
    .filter(([k]) => k.startsWith('5'))
    .reduce((a, [, v]) => a + v, 0);
  checks.check('clients saw no 5xx', fivexx === 0, `${fivexx} 5xx`);
  checks.check(
    'no unexpected 4xx and no request that no replica answered',
    lb.unexpectedCount === 0,
    `${lb.unexpectedCount} unexpected${lb.unexpected.length ? `: ${lb.unexpected.slice(0, 5).join(' | ')}` : ''}`,
  );
  checks.check(
    'every request answered',
    [...lb.stats.values()].reduce((a, s) => a + s.count, 0) === REQUESTS,
    `${lb.rerouted} met a killed replica (connection refused or cut) and were sent to the next one; the round-robin has no health check`,
  );

  // The standby took over.
  const holder = await writerLockHolder(db);
  const holderNow = await holderName(holder);
  checks.check(
    'standby took over: the writer lock is held by a live backend of writer-b',
    holderNow === 'writer-b' && writerB.alive(),
    `holder ${holderNow} (backend pid ${holder?.pid ?? '-'}); failover ${killed ? `${killed.failoverMs} ms from kill -9 to election, ${killed.readyMs} ms to its admin socket` : 'not measured'}`,
  );
  const ingestResults = await Promise.all(ingests);
  checks.check(
    "cds ingest through the active writer's admin socket succeeded",
    ingestResults.every((r) => r.code === 0),
    `exit ${ingestResults.map((r) => `${r.code}${r.code === 0 ? '' : ` ${r.stderr.trim().slice(0, 160)}`}`).join(', ')}`,
  );
  checks.check(
    'cds ingest after the writer kill (through writer-b) succeeded',
    killed?.ingest.code === 0,
    `exit ${killed?.ingest.code} ${killed?.ingest.stderr.trim().slice(0, 200) ?? ''}`.trim(),
  );
  const drained = await eventually(
    async () => readdirSync(inbox).filter((f) => f.startsWith('creators-cluster')).length === 0,
    60_000,
    1000,
  );
  checks.check("inbox file picked up by the writer's inbox watcher", drained, readdirSync(inbox).join(', ') || 'empty');

  // PostgreSQL restarted, then paused, under more load; two supervised standbys keep a writer electable.
  const standbys = await Promise.all(
    ['writer-c', 'writer-d'].map((name) => supervise(cluster, { name, roles: 'writer', dataDir: writerDir }, { say })),
  );
  supervised.push(...standbys);
  const runningBefore = processes.filter((p) => p.roles !== 'writer' && p.alive());
  const readyUrls = apis.filter((a) => a.alive()).map((a) => a.url as string);
  const readiness = watchReadiness(readyUrls);
  const fivexxBefore = fiveXx(lb);
  let faultsDone = false;
  const faults = postgresFaults(postgres, readyUrls, PAUSE_MS, electedAfterRestart)
    .then(
      (lines) => lines,
      (error: Error) => [`FAILED: ${error.message}`],
    )
    .finally(() => {
      faultsDone = true;
    });
  let sentDuringFaults = 0;
  await Promise.all(
    clients.map(async (c) => {
      while (!faultsDone) {
        sentDuringFaults++;
        await oneRequest(work, c);
      }
    }),
  );
  const faultLines = await faults;
  for (const line of faultLines) say(line);
  db = await connectDb();
  const seen = await readiness.stop();
  checks.check(
    'PostgreSQL restarted and paused mid-load, every replica ready again after each',
    !faultLines.some((l) => l.startsWith('FAILED')),
    `${sentDuringFaults} requests meanwhile; ${lb.unavailableRetried} 503s sent again a second later`,
  );
  checks.check(
    `every replica answered /readyz within ${READY_BOUND_MS} ms throughout`,
    seen.late.length === 0,
    `${seen.probes} probes of ${readyUrls.length} replicas, slowest ${Math.round(seen.maxMs)} ms, ${seen.notReady} answered 503${seen.late.length ? `; late: ${seen.late.slice(0, 5).join(' | ')}` : ''}`,
  );
  checks.check(
    'clients saw no 5xx through the PostgreSQL faults (a 503 is sent again for up to a minute)',
    fiveXx(lb) === fivexxBefore,
    `${fiveXx(lb) - fivexxBefore} 5xx`,
  );
  // a writer that stepped down during the pause may be the one elected again once restarted: wait until it has started
  let lockHolders = 0;
  let holderAfter = 'none';
  await eventually(
    async () => {
      lockHolders = Number(
        (
          await db.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks
      WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND granted`,
            [WRITER_LOCK],
          )
        ).rows[0]?.n ?? 0,
      );
      holderAfter = await holderName(await writerLockHolder(db));
      return lockHolders === 1 && standbys.some((w) => w.name === holderAfter && w.current.alive());
    },
    60_000,
    250,
  );
  checks.check(
    'after the PostgreSQL faults exactly one active writer, a live one',
    lockHolders === 1 && standbys.some((w) => w.name === holderAfter && w.current.alive()),
    `${lockHolders} holder(s): ${holderAfter}; writer-b ${writerB.alive() ? 'running' : `exited ${writerB.child.exitCode} (stepped down)`}; ` +
      standbys
        .map((w) => `${w.name} ${w.current.alive() ? 'running' : 'down'} after ${w.restarts} restart(s)`)
        .join(', '),
  );
  checks.check(
    'after the PostgreSQL faults every API replica and worker is still running',
    runningBefore.every((p) => p.alive()),
    runningBefore.map((p) => `${p.name} ${p.alive() ? 'running' : `exited ${p.child.exitCode}`}`).join(', '),
  );

  // Zero lost writes, on every surviving replica (each follows snapshots on its own: allow for the lag).
  const survivors = apis.filter((a) => a.alive()).map((a) => a.url as string);
  await checkIngested(
    checks,
    'creators update ingested after the writer kill',
    survivors,
    drillKey.key,
    updates.rows.filter((r) => r.file === 3),
  );
  await checkIngested(checks, 'every ingested creators update (4 files)', survivors, drillKey.key, updates.rows);
  await checkWrites(checks, survivors, clients, { id: hookId, key: drillKey.key });
  await checkExports(checks, survivors, clients);

  // Webhooks: PostgreSQL's outbox against the receiver.
  await checkDeliveries(checks, db, receiver, { id: hookId, accountId: drillKey.account_id, afterSeq });
  for (const url of survivors)
    checks.check(
      `${url} healthy after the drill`,
      await fetch(`${url}/readyz`).then(
        (r) => r.ok,
        () => false,
      ),
    );

  // Clean stops, then the relay through the failover from the writer's own store.
  const codes: string[] = [];
  for (const p of processes.filter((x) => x.roles !== 'writer' && x.alive())) codes.push(`${p.name} ${await p.stop()}`);
  for (const p of processes.filter((x) => x.roles === 'writer' && x.alive())) codes.push(`${p.name} ${await p.stop()}`);
  for (const w of supervised) codes.push(`${w.name} ${await w.stop()}`);
  checks.check(
    'SIGTERM: every surviving process stopped cleanly (exit 0)',
    codes.every((c) => c.endsWith(' 0')),
    codes.join(', '),
  );
  await checkRelay(checks, db, join(writerDir, 'cds.duckdb'));
} catch (error) {
  checks.check('drill ran to the end', false, (error as Error).stack ?? String(error));
} finally {
  clearTimeout(watchdog);
  await cleanup();
}
summary();
finishDrill(checks, {
  name: 'cluster',
  command: `npm run drill:cluster -- --requests ${REQUESTS} --concurrency ${CONCURRENCY} --creators ${CREATORS}`,
  title: 'CLUSTER DRILL',
  record: values.record === true,
});

/**
 * `cds ingest` of one creators file through the active writer, sent again a second later when the
 * writer answers that a run of the same pipeline is in flight (its inbox or its schedule), as an operator would.
 */
async function ingestFile(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  for (let attempt = 1; ; attempt++) {
    const r = await cds(['ingest', file, '--entity', 'creators', '--json'], cliEnv(postgres.url));
    if (r.code === 0 || !/another run in flight; try again/.test(r.stderr) || attempt >= 30) return r;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

/** Waits (on a connection of its own: the restart ended the drill's) until a writer holds the lock; says which. */
async function electedAfterRestart(): Promise<string> {
  const client = await connectDb();
  try {
    const started = Date.now();
    let holder: LockHolder | null = null;
    await eventually(async () => (holder = await writerLockHolder(client)) !== null, 60_000, 100);
    return `${await holderName(holder)} elected ${((Date.now() - started) / 1000).toFixed(1)} s after that`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Which of our processes holds the writer lock (through its connection's port). */
async function holderName(holder: LockHolder | null): Promise<string> {
  if (!holder) return 'none';
  const pid = await processOnPort(holder.port);
  return (
    processes.find((p) => p.child.pid === pid)?.name ??
    supervised.find((w) => w.current.child.pid === pid)?.name ??
    `unknown process ${pid ?? '?'}`
  );
}

async function start(
  cluster: ClusterEnv,
  name: string,
  roles: string,
  dataDir: string,
  port?: number,
): Promise<ClusterProcess> {
  const p = await spawnProcess(cluster, { name, roles, dataDir, port }, 300_000);
  processes.push(p);
  return p;
}

async function cleanup(): Promise<void> {
  await Promise.all(supervised.map((w) => w.stop()));
  await Promise.all(processes.filter((p) => p.alive()).map((p) => p.stop()));
  await db.end().catch(() => undefined);
  await postgres.stop().catch(() => undefined);
  await receiver.close();
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
}

async function abort(): Promise<void> {
  checks.check(`drill finished within ${DEADLINE_MS / 60_000} minutes`, false, 'killed every process');
  await Promise.all(processes.filter((p) => p.alive()).map((p) => p.kill9()));
  await cleanup().catch(() => undefined);
  process.stdout.write('\nCLUSTER DRILL FAILED (deadline)\n');
  process.exit(1);
}

/**
 * kill -9 of a webhook worker once the receiver sees the deliveries of the file
 * just ingested (or after 20 s): the one that sent most of them, so that it dies
 * with sends in flight and claims held.
 */
async function killDuringDeliveries(workers: readonly ClusterProcess[]): Promise<void> {
  const from = receiver.receipts.length;
  const at = sent;
  const flowing = await eventually(async () => receiver.receipts.length >= from + 4, 20_000, 20);
  const recent = receiver.receipts.slice(from);
  const sentBy = (w: ClusterProcess) => recent.filter((r) => r.pid === w.child.pid).length;
  const victim = [...workers].sort((a, b) => sentBy(b) - sentBy(a))[0]!;
  const counts = workers.map((w) => `${w.name} ${sentBy(w)}`).join(', ');
  await victim.kill9();
  say(
    `kill -9 ${victim.name} at request ${at}, ${flowing ? `with deliveries flowing (received since the ingest: ${counts})` : 'no deliveries seen within 20 s'}`,
  );
}

/**
 * kill -9 of the active writer once the ingests it runs are done (a load cut off
 * mid-way is drill:faults' subject), timing the standby's election (pg_locks)
 * and its admin socket; then one more creators file through the new writer.
 */
async function killWriter(
  writer: ClusterProcess,
  ingests: Array<Promise<unknown>>,
  inbox: string,
  file: string,
  visible: () => Promise<boolean>,
) {
  await Promise.all(ingests);
  await eventually(
    async () => readdirSync(inbox).filter((f) => f.startsWith('creators-cluster')).length === 0,
    30_000,
    250,
  );
  const before = await writerLockHolder(db);
  const killedAt = performance.now();
  await writer.kill9();
  say(`kill -9 ${writer.name} (lock backend pid ${before?.pid ?? '-'}) at request ${sent}`);
  let failoverMs = -1;
  await eventually(
    async () => {
      const now = await writerLockHolder(db);
      if (!now || now.pid === before?.pid) return false;
      failoverMs = Math.round(performance.now() - killedAt);
      return true;
    },
    30_000,
    25,
  );
  // writer-b opens the store, then replaces the dead writer's socket file with its own.
  await eventually(() => socketAnswers(join(writerDir, 'admin.sock')), 60_000, 50);
  const readyMs = Math.round(performance.now() - killedAt);
  say(`writer-b elected ${failoverMs} ms after the kill; admin socket answering after ${readyMs} ms`);
  const ingest = await ingestFile(file);
  const ingestedAt = performance.now();
  const seen = await eventually(visible, 60_000, 100);
  const lagMs = seen ? Math.round(performance.now() - ingestedAt) : -1;
  say(
    `creators file ingested through writer-b ${Math.round(ingestedAt - killedAt)} ms after the kill; a new creator of it on api-1 after ${lagMs} ms (snapshot lag)`,
  );
  return { failoverMs, readyMs, ingest, lagMs };
}

function socketAnswers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** Which limiter the app picks in cluster mode (server/app.ts), for the rate-limit line. */
async function limiterInUse(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const app = await readFile(join(import.meta.dirname, '..', 'server', 'app.ts'), 'utf8');
  return /sql\.shared \? new PgRateLimiter/.test(app)
    ? 'PgRateLimiter (GCRA in PostgreSQL, server/app.ts)'
    : 'not the shared PgRateLimiter (see server/app.ts)';
}

/** The drill's numbers in one place, at the end of its output. */
function summary(): void {
  if (!balancer) return;
  const all = [...balancer.stats.values()].flatMap((s) => s.ms);
  const errors = Object.fromEntries(Object.entries(totalStatuses(balancer)).filter(([k]) => !k.startsWith('2')));
  say(
    `summary: ${all.length} requests in ${loadSeconds.toFixed(1)} s over ${balancer.urls.length} replicas (one killed), errors by status ${JSON.stringify(errors)}, ` +
      `p50 ${percentile(all, 0.5).toFixed(1)} ms, p99 ${percentile(all, 0.99).toFixed(1)} ms; failover: writer-b elected ${failover?.failoverMs ?? '?'} ms after kill -9 ` +
      `(pg_locks), admin socket ${failover?.readyMs ?? '?'} ms, a creator it then ingested visible on api-1 ${failover?.lagMs ?? '?'} ms after the ingest returned`,
  );
}

function fiveXx(lb: Balancer): number {
  return Object.entries(totalStatuses(lb))
    .filter(([k]) => k.startsWith('5'))
    .reduce((a, [, v]) => a + v, 0);
}

function totalStatuses(lb: Balancer): Record<string, number> {
  const out: Record<string, number> = {};
  for (const s of lb.stats.values()) for (const [k, v] of Object.entries(s.statuses)) out[k] = (out[k] ?? 0) + v;
  return out;
}

function summarise(lb: Balancer, seconds: number): void {
  const all = [...lb.stats.values()].flatMap((s) => s.ms);
  say(
    `${all.length} requests in ${seconds.toFixed(1)} s → ${(all.length / seconds).toFixed(0)} req/s over ${lb.urls.length} replicas; ` +
      `p50 ${percentile(all, 0.5).toFixed(1)} ms, p99 ${percentile(all, 0.99).toFixed(1)} ms; statuses ${JSON.stringify(totalStatuses(lb))}; ${lb.rerouted} rerouted; ${lb.waitedOut} 429s waited out (Retry-After) and sent again`,
  );
  for (const [op, s] of [...lb.stats.entries()].sort()) {
    say(
      `  ${op.padEnd(16)} ${String(s.count).padStart(5)}  p50 ${percentile(s.ms, 0.5).toFixed(1).padStart(7)} ms  p99 ${percentile(s.ms, 0.99).toFixed(1).padStart(7)} ms  ${JSON.stringify(s.statuses)}`,
    );
  }
}
