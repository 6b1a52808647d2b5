// The checks of the cluster drill after the load: writes visible on every
// surviving replica, webhook deliveries against PostgreSQL's outbox, the writer
// lock, the shared rate limit, the relay through the failover. Each one a PASS/FAIL line.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { Store } from '../data/store.js';
import { call, eventually, honourRetryAfter, type Checks } from '../test/helpers/drill-kit.js';
import { listMembers } from './drill-load-workload.js';
import type { Client, IngestedRow } from './drill-cluster-workload.js';

/** The writer's advisory lock key (data/state/writer-election.ts): one bigint key shows as classid 0, objid = key. */
export const WRITER_LOCK = 7_202_612;

/** One webhook request as the receiver saw it; `pid` is the sending process (null if `ss` could not tell). */
export interface Receipt {
  id: string;
  at: number;
  pid: number | null;
}

/**
 * A loopback webhook receiver that keeps every receipt with its arrival time and
 * answers 200 after `delayMs`, so that a worker killed mid-delivery has sends in flight.
 */
export interface TimedReceiver {
  url: string;
  receipts: Receipt[];
  close(): Promise<void>;
}

export async function startTimedReceiver(delayMs: number): Promise<TimedReceiver> {
  const receipts: Receipt[] = [];
  // Senders keep their connections alive: one `ss` look-up per connection, off the request's path.
  const senders = new Map<number, Promise<number | null>>();
  const server: Server = createServer((req, res) => {
    const at = Date.now();
    const id = String(req.headers['webhook-id'] ?? '');
    const port = req.socket.remotePort ?? 0;
    const sender = senders.get(port) ?? processOnPort(port);
    senders.set(port, sender);
    req.resume();
    req.on('end', () => {
      void sender.then((pid) => receipts.push({ id, at, pid }));
      setTimeout(() => res.writeHead(200).end(), delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    receipts,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** `call`, waiting out 429s as their Retry-After says (checks must not fail on the rate limit the load used up). */
export function patientCall(
  url: string,
  key: string,
  method: string,
  path: string,
): Promise<{ status: number; body: unknown }> {
  return honourRetryAfter(() => call(url, key, method, path));
}

/** The live backend holding the writer lock, if any: its pid, application name and client port. */
export interface LockHolder {
  pid: number;
  app: string;
  port: number | null;
}

export async function writerLockHolder(db: pg.Client): Promise<LockHolder | null> {
  const r = await db.query<LockHolder>(
    `SELECT l.pid, a.application_name AS app, a.client_port AS port
    FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
    WHERE l.locktype = 'advisory' AND l.classid = 0 AND l.objid = $1 AND l.granted`,
    [WRITER_LOCK],
  );
  return r.rows[0] ?? null;
}

/**
 * The OS process on the client end of a PostgreSQL connection, found by its
 * source port with `ss`: proof from the operating system of which process holds
 * the lock, besides the name the writer gives its connection ('cds writer <instance>').
 */
export function processOnPort(port: number | null): Promise<number | null> {
  if (!port) return Promise.resolve(null);
  return new Promise((resolve) => {
    execFile('ss', ['-Htnp', 'state', 'established', `( sport = :${port} )`], { encoding: 'utf8' }, (error, out) =>
      resolve(error ? null : Number(/pid=(\d+)/.exec(out)?.[1]) || null),
    );
  });
}

/** Lists, members, the subscription and every export, on each replica. */
export async function checkWrites(
  checks: Checks,
  urls: readonly string[],
  clients: readonly Client[],
  hook: { id: string; key: string },
): Promise<void> {
  for (const url of urls) {
    let lists = 0;
    let missing = 0;
    let extra = 0;
    let unreadable = 0;
    for (const c of clients) {
      for (const [id, expected] of c.lists) {
        lists++;
        // a list that cannot be read says nothing about its members: reported apart, never counted as lost
        const found = await listMembers(url, c.key, id);
        if (!found) {
          unreadable++;
          continue;
        }
        for (const m of expected) if (!found.has(m)) missing++;
        for (const m of found) if (!expected.has(m)) extra++;
      }
    }
    const members = clients.reduce((a, c) => a + [...c.lists.values()].reduce((b, s) => b + s.size, 0), 0);
    checks.check(
      `every list readable on ${url}`,
      unreadable === 0,
      `${unreadable} of ${lists} lists could not be read`,
    );
    checks.check(
      `zero lost list writes on ${url}`,
      missing === 0 && extra === 0,
      `${lists} lists, ${members} members; ${missing} missing, ${extra} unexpected`,
    );
    const sub = await patientCall(url, hook.key, 'GET', `/v1/webhooks/${hook.id}`);
    checks.check(`webhook subscription visible on ${url}`, sub.status === 200, `${sub.status}`);
  }
}

/** Every export created finishes; each replica shows it succeeded and serves its file. */
export async function checkExports(checks: Checks, urls: readonly string[], clients: readonly Client[]): Promise<void> {
  const jobs = clients.flatMap((c) => [...c.exports.keys()].map((id) => ({ id, key: c.key })));
  const done = new Map<string, string>();
  await eventually(
    async () => {
      for (const j of jobs) {
        if (done.has(j.id)) continue;
        const status =
          (
            (await patientCall(urls[0] as string, j.key, 'GET', `/v1/exports/${j.id}`)).body as {
              status?: string;
            } | null
          )?.status ?? '?';
        if (status !== 'queued' && status !== 'running') done.set(j.id, status);
      }
      return done.size === jobs.length;
    },
    120_000,
    1000,
  );
  for (const url of urls) {
    let ok = 0;
    const bad: string[] = [];
    for (const j of jobs) {
      const s = await patientCall(url, j.key, 'GET', `/v1/exports/${j.id}`);
      const dl = await patientCall(url, j.key, 'GET', `/v1/exports/${j.id}/download`);
      const status = (s.body as { status?: string } | null)?.status;
      if (status === 'succeeded' && dl.status === 200) ok++;
      else if (bad.length < 3) bad.push(`${j.id}: ${status} ${dl.status} ${JSON.stringify(s.body).slice(0, 160)}`);
    }
    checks.check(
      `every export job succeeded and downloads on ${url}`,
      ok === jobs.length,
      `${ok}/${jobs.length}${bad.length ? `; ${bad.join(' | ')}` : ''}`,
    );
  }
}

/** Answers how many of `rows` the replica at `url` shows applied (or since superseded by newer data). */
async function appliedOn(
  url: string,
  key: string,
  rows: readonly IngestedRow[],
): Promise<{ applied: number; superseded: number }> {
  let applied = 0;
  let superseded = 0;
  for (const u of rows) {
    const p = (
      await patientCall(url, key, 'GET', `/v1/creators/${encodeURIComponent(u.handle)}?platform=${u.platform}`)
    ).body as { followers?: number; updated_at?: string } | null;
    if (p?.followers === u.followers) applied++;
    else if ((Date.parse(p?.updated_at ?? '') || 0) > Date.parse(u.stamp)) superseded++;
  }
  return { applied, superseded };
}

/** Polls each replica until all `rows` show (snapshot lag); one PASS/FAIL per replica. */
export async function checkIngested(
  checks: Checks,
  label: string,
  urls: readonly string[],
  key: string,
  rows: readonly IngestedRow[],
  ms = 60_000,
): Promise<void> {
  for (const url of urls) {
    const started = Date.now();
    let seen = { applied: 0, superseded: 0 };
    await eventually(
      async () => {
        seen = await appliedOn(url, key, rows);
        return seen.applied + seen.superseded === rows.length;
      },
      ms,
      2000,
    );
    const fresh = rows.filter((r) => r.isNew).length;
    checks.check(
      `${label} visible on ${url}`,
      seen.applied + seen.superseded === rows.length,
      `${seen.applied + seen.superseded}/${rows.length} (${fresh} new creators; ${seen.superseded} since superseded by the demo feed); polled ${((Date.now() - started) / 1000).toFixed(1)} s`,
    );
  }
}

interface Eligible {
  event_id: string;
  delivery_id: string | null;
  status: string | null;
  attempts: number | null;
}

/**
 * Every event in PostgreSQL's outbox that the subscription matches (created
 * after it: no webhook.test; account-less or of its account) has a delivery to
 * it, and the receiver got that delivery's `webhook-id`.
 */
export async function checkDeliveries(
  checks: Checks,
  db: pg.Client,
  receiver: TimedReceiver,
  hook: { id: string; accountId: string; afterSeq: number },
): Promise<void> {
  let rows: Eligible[] = [];
  let unreceived = 0;
  const started = Date.now();
  await eventually(
    async () => {
      rows = (
        await db.query<Eligible>(
          `SELECT e.event_id, d.delivery_id, d.status, d.attempts FROM events e
      LEFT JOIN deliveries d ON d.event_id = e.event_id AND d.webhook_id = $1
      WHERE e.seq > $2 AND e.type <> 'webhook.test' AND (e.account_id IS NULL OR e.account_id = $3)`,
          [hook.id, hook.afterSeq, hook.accountId],
        )
      ).rows;
      const got = new Set(receiver.receipts.map((r) => r.id));
      unreceived = rows.filter((r) => !r.delivery_id || !got.has(r.delivery_id)).length;
      // settled: every delivery finished, so a killed worker's leases have run out and its claims were sent again
      const settled = rows.every((r) => r.status === 'succeeded' || r.status === 'failed');
      return rows.length > 0 && unreceived === 0 && settled;
    },
    150_000,
    2000,
  );
  const total = (await db.query<{ n: string }>('SELECT count(*) AS n FROM events')).rows[0]?.n;
  const statuses: Record<string, number> = {};
  for (const r of rows) statuses[r.status ?? 'no delivery'] = (statuses[r.status ?? 'no delivery'] ?? 0) + 1;
  checks.check(
    'every event relayed to PostgreSQL was delivered at least once',
    rows.length > 0 && unreceived === 0,
    `${rows.length - unreceived}/${rows.length} matching events received (of ${total} events in PostgreSQL); delivery states ${JSON.stringify(statuses)}; settled after ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  await checkNoDoubleSend(checks, db, receiver, hook.id);
}

/**
 * No attempt sent twice at once. `delivery_attempts` has the primary key
 * (delivery_id, attempt), so a duplicate row cannot exist; what could still
 * happen is two workers sending the same leased attempt and one failing to
 * record it. So: a delivery is never received more often than it was claimed
 * (`deliveries.attempts`, the fencing counter every claim raises, and at least
 * the attempts recorded; a send cut off by a kill is recorded as `interrupted`
 * by the next worker), and one webhook-id never arrives from both workers within a second
 * (a retry by another worker comes after the lease, tens of seconds later).
 * Receipt times are the drill process's, which is busy, so repeats from one
 * worker (its own sequential retries) are not timed.
 */
async function checkNoDoubleSend(
  checks: Checks,
  db: pg.Client,
  receiver: TimedReceiver,
  webhookId: string,
): Promise<void> {
  const dupRows = Number(
    (
      await db.query<{ n: string }>(`SELECT count(*) AS n FROM (SELECT delivery_id, attempt FROM delivery_attempts
    GROUP BY delivery_id, attempt HAVING count(*) > 1) x`)
    ).rows[0]?.n ?? 0,
  );
  const attempts = new Map(
    (
      await db.query<{ delivery_id: string; n: string }>(
        `SELECT d.delivery_id,
      greatest(d.attempts, (SELECT count(*) FROM delivery_attempts a WHERE a.delivery_id = d.delivery_id)) AS n
    FROM deliveries d WHERE d.webhook_id = $1`,
        [webhookId],
      )
    ).rows.map((r) => [r.delivery_id, Number(r.n)]),
  );
  const byId = new Map<string, Receipt[]>();
  for (const r of receiver.receipts) byId.set(r.id, [...(byId.get(r.id) ?? []), r]);
  let overReceived = 0;
  let close = 0;
  let repeated = 0;
  let twoWorkers = 0;
  for (const [id, got] of byId) {
    if (got.length > (attempts.get(id) ?? 0)) overReceived++;
    if (got.length > 1) repeated++;
    if (new Set(got.map((r) => r.pid)).size > 1) twoWorkers++;
    for (const a of got) if (got.some((b) => b.pid !== a.pid && b.at > a.at && b.at - a.at < 1000)) close++;
  }
  checks.check(
    'no (delivery_id, attempt) sent twice concurrently',
    dupRows === 0 && overReceived === 0 && close === 0,
    `${dupRows} duplicate attempt rows; ${overReceived} deliveries received more often than claimed; ` +
      `${close} webhook-ids from both workers within 1 s; ${repeated} of ${byId.size} webhook-ids received more than once ` +
      `(${twoWorkers} from both workers, the killed one's claims resent after its lease ran out; the rest retries after a timeout)`,
  );
}

/**
 * `limit + 20` requests of one key at once, spread over the replicas: with one
 * limiter shared through PostgreSQL about `limit` pass (GCRA adds one per
 * `60 / limit` s the burst lasts); with a limiter per replica, up to `limit × replicas`.
 */
export async function checkSharedRateLimit(
  checks: Checks,
  urls: readonly string[],
  key: string,
  limit: number,
  limiter: string,
): Promise<void> {
  const started = performance.now();
  const answers = await Promise.all(
    Array.from({ length: limit + 20 }, (_, i) =>
      call(urls[i % urls.length] as string, key, 'GET', '/v1/account').then(
        (r) => r.status,
        () => 0,
      ),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const passed = answers.filter((s) => s !== 429 && s !== 0).length;
  const others = answers.filter((s) => s !== 429 && s !== 200).length;
  // the cell refills while the burst lasts (seconds on a loaded machine): those requests pass by right
  const refill = Math.floor((seconds * limit) / 60);
  checks.check(
    `rate limit shared across replicas: non-429 answers within 2 % of ${limit} plus the refill during the burst`,
    passed >= limit - limit * 0.02 && passed <= limit + refill + limit * 0.02 && others === 0,
    `${passed} of ${limit + 20} passed over ${urls.length} replicas in ${seconds.toFixed(2)} s (GCRA refill in that time ≈ ${refill}); ` +
      `${others} neither 200 nor 429; limiter: ${limiter}`,
  );
}

/**
 * After the writers stopped: every event the writer's DuckDB outbox holds up to
 * its relay position is in PostgreSQL (nothing lost when the active writer died
 * between commit and relay).
 */
export async function checkRelay(checks: Checks, db: pg.Client, storePath: string): Promise<void> {
  const store = await Store.open(storePath, { readOnly: true });
  try {
    const pos =
      (await store.one<{ position: number }>(`SELECT position FROM outbox_relay WHERE stream = 'events'`))?.position ??
      0;
    const local = await store.all<{ event_id: string }>('SELECT event_id FROM events WHERE seq <= ?', [pos]);
    const after = (await store.one<{ n: number }>('SELECT count(*) AS n FROM events WHERE seq > ?', [pos]))?.n ?? 0;
    const inPg = new Set(
      (await db.query<{ event_id: string }>('SELECT event_id FROM events')).rows.map((r) => r.event_id),
    );
    const lost = local.filter((e) => !inPg.has(e.event_id)).length;
    checks.check(
      'outbox relay: every event the writers committed up to the relay position is in PostgreSQL',
      lost === 0 && local.length > 0,
      `${local.length - lost}/${local.length} relayed; ${after} committed after the last relay pass before shutdown`,
    );
  } finally {
    await store.close();
  }
}
