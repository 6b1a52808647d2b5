// The client side of the cluster drill: requests sent round-robin over the API
// replicas as a plain load balancer without health checks would, and the mixed
// workload each client runs. A connection error (the replica is gone) is sent
// again to the next replica; an HTTP answer, whatever its status, is final.
// Also the creators files the drill ingests while the load runs.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, honourRetryAfter } from '../test/helpers/drill-kit.js';
import type { CreatorRef, OpStats } from './drill-load-workload.js';
import { CREATOR_FILE_COLUMNS } from '../pipelines/entities/source-entities.js';

export interface Answer {
  status: number;
  body: unknown;
  ms: number;
}

/** A creator row an ingest file set: its follower count and stamp (a newer stamp from the demo feed supersedes it). */
export interface IngestedRow extends CreatorRef {
  followers: number;
  stamp: string;
  isNew: boolean;
}

/** An export a client created and how far it has followed it. */
export type ExportProgress = 'pending' | 'succeeded' | 'failed' | 'downloaded';

/** One client: its key, and what it wrote and must find again on every replica. */
export interface Client {
  key: string;
  lists: Map<string, Set<string>>;
  exports: Map<string, ExportProgress>;
}

export interface Workload {
  lb: Balancer;
  pool: CreatorRef[];
  random: () => number;
}

/** undici's fetch throws a TypeError for a refused, reset or cut-off connection ('fetch failed', 'terminated'). */
const isConnectionError = (error: unknown): boolean => error instanceof TypeError;

export const refKey = (c: CreatorRef): string => `${c.platform}:${c.handle}`;

/** Round-robin over the replicas; records every answer by operation. */
export class Balancer {
  private turn = 0;
  /** Requests that met a dead replica and were sent again to the next one. */
  rerouted = 0;
  /** 429s waited out (their Retry-After) and sent again, as a client does. */
  waitedOut = 0;
  /** 503s (PostgreSQL away) sent again a second later to the next replica, as a client does. */
  unavailableRetried = 0;
  readonly stats = new Map<string, OpStats>();
  /** 5xx, 4xx other than 429, and requests no replica answered; the first few with their body. */
  readonly unexpected: string[] = [];
  unexpectedCount = 0;

  constructor(readonly urls: readonly string[]) {}

  /**
   * The next replica answers; on a connection error the one after it, until each was tried once.
   * A 503 (the shared state away) is sent again a second later, to the next replica, for up to a minute.
   */
  async send(key: string, method: string, path: string, json?: unknown): Promise<Answer> {
    const started = performance.now();
    for (let retry = 0; ; retry++) {
      const r = await this.sendOnce(key, method, path, json);
      if (r.status !== 503 || retry >= UNAVAILABLE_RETRIES) return { ...r, ms: performance.now() - started };
      this.unavailableRetried++;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }

  private async sendOnce(key: string, method: string, path: string, json?: unknown): Promise<Answer> {
    const first = this.turn++;
    for (let i = 0; ; i++) {
      try {
        const url = this.urls[(first + i) % this.urls.length] as string;
        const r = await honourRetryAfter(() => call(url, key, method, path, json), RETRY_AFTER_BUDGET_MS);
        this.waitedOut += r.waits;
        return r;
      } catch (error) {
        if (!isConnectionError(error) || i + 1 >= this.urls.length) throw error;
        this.rerouted++;
      }
    }
  }

  /** `send`, recorded under `op` (status `conn` when no replica answered). */
  async op(op: string, key: string, method: string, path: string, json?: unknown): Promise<Answer> {
    const started = performance.now();
    const r = await this.send(key, method, path, json).catch((error: Error) => ({
      status: 0,
      body: `${error.message}: ${String((error.cause as Error | undefined)?.message ?? '')}`,
      ms: performance.now() - started,
    }));
    const s = this.stats.get(op) ?? { count: 0, ms: [], statuses: {} };
    const status = r.status === 0 ? 'conn' : String(r.status);
    s.count++;
    s.ms.push(r.ms);
    s.statuses[status] = (s.statuses[status] ?? 0) + 1;
    this.stats.set(op, s);
    if ((r.status < 200 || r.status >= 300) && r.status !== 429) {
      this.unexpectedCount++;
      if (this.unexpected.length < 10)
        this.unexpected.push(`${op} ${method} ${path} → ${status} ${JSON.stringify(r.body).slice(0, 200)}`);
    }
    return r;
  }
}

/** How long one request of the load may spend waiting out 429s before the 429 is its answer. */
const RETRY_AFTER_BUDGET_MS = 10_000;
/** 503s one request sends again (a second apart) before the 503 is its answer: a PostgreSQL pause of up to a minute. */
const UNAVAILABLE_RETRIES = 60;

const NICHES = ['beauty', 'fashion', 'fitness', 'food', 'travel', 'gaming', 'tech', 'finance', 'music', 'comedy'];
const COUNTRIES = ['US', 'GB', 'IN', 'BR', 'DE', 'FR', 'ES', 'MX', 'JP', 'CA'];
const PLATFORMS = ['instagram', 'tiktok', 'youtube', 'twitch', 'x'];
const SORTS = ['-followers', 'followers', '-engagement_rate', '-growth_30d', '-authenticity_score', 'price', '-price'];
const FORMATS = ['csv', 'parquet', 'ndjson', 'json'];
const EXPORTS_PER_CLIENT = 4;

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;

/** One request of the mix: search 35 %, profile 20 %, lists 20 %, exports 12 %, webhook list 7 %, account 6 %. */
export async function oneRequest(w: Workload, c: Client): Promise<void> {
  const r = w.random();
  if (r < 0.35) await search(w, c);
  else if (r < 0.55) {
    const p = pick(w.random, w.pool);
    await w.lb.op('profile', c.key, 'GET', `/v1/creators/${encodeURIComponent(p.handle)}?platform=${p.platform}`);
  } else if (r < 0.75) await listOp(w, c);
  else if (r < 0.87) await exportOp(w, c);
  else if (r < 0.94) await w.lb.op('webhook list', c.key, 'GET', '/v1/webhooks?limit=50');
  else await w.lb.op('account', c.key, 'GET', '/v1/account');
}

async function search(w: Workload, c: Client): Promise<void> {
  const q = new URLSearchParams();
  if (w.random() < 0.6) q.set('niche', pick(w.random, NICHES));
  if (w.random() < 0.5) q.set('country', pick(w.random, COUNTRIES));
  if (w.random() < 0.3) q.set('platform', pick(w.random, PLATFORMS));
  if (w.random() < 0.3) q.set('followers_min', String(Math.floor(w.random() * 200_000)));
  if (w.random() < 0.2) q.set('engagement_min', (w.random() * 5).toFixed(1));
  if (w.random() < 0.15) q.set('price_max', String(Math.round(20 * Math.exp(w.random() * 6))));
  q.set('sort', pick(w.random, SORTS));
  q.set('limit', String(pick(w.random, [10, 20, 50])));
  await w.lb.op('search', c.key, 'GET', `/v1/creators/search?${q}`);
}

async function listOp(w: Workload, c: Client): Promise<void> {
  if (c.lists.size < 2) {
    const res = await w.lb.op('list create', c.key, 'POST', '/v1/lists', {
      name: `cluster drill ${c.lists.size}`,
      description: 'cluster drill',
    });
    const id = (res.body as { id?: string } | null)?.id;
    if (res.status === 201 && id) c.lists.set(id, new Set());
    return;
  }
  const [id, members] = pick(w.random, [...c.lists.entries()]);
  if (w.random() < 0.6) {
    const batch = Array.from({ length: 1 + Math.floor(w.random() * 5) }, () => pick(w.random, w.pool));
    const res = await w.lb.op('list add', c.key, 'POST', `/v1/lists/${id}/creators`, { creators: batch });
    if (res.status !== 200) return;
    const missing = new Set(
      ((res.body as { not_found?: Array<{ handle: string } | string> }).not_found ?? []).map((x) =>
        typeof x === 'string' ? x : x.handle,
      ),
    );
    for (const m of batch) if (!missing.has(m.handle)) members.add(refKey(m));
  } else {
    await w.lb.op('list read', c.key, 'GET', `/v1/lists/${id}/creators?limit=50`);
  }
}

/** Downloads a finished export, else polls a pending one, else creates one (up to a few per client). */
async function exportOp(w: Workload, c: Client): Promise<void> {
  const ready = [...c.exports].find(([, s]) => s === 'succeeded')?.[0];
  if (ready) {
    const res = await w.lb.op('export download', c.key, 'GET', `/v1/exports/${ready}/download`);
    if (res.status === 200) c.exports.set(ready, 'downloaded');
    return;
  }
  const pending = [...c.exports].find(([, s]) => s === 'pending')?.[0];
  if (pending || c.exports.size >= EXPORTS_PER_CLIENT) {
    const id = pending ?? pick(w.random, [...c.exports.keys()]);
    const res = await w.lb.op('export poll', c.key, 'GET', `/v1/exports/${id}`);
    const status = (res.body as { status?: string } | null)?.status;
    if (pending && (status === 'succeeded' || status === 'failed')) c.exports.set(id, status);
    return;
  }
  const res = await w.lb.op('export create', c.key, 'POST', '/v1/exports', {
    source: 'search',
    filters: { niche: pick(w.random, NICHES), country: pick(w.random, COUNTRIES) },
    format: pick(w.random, FORMATS),
  });
  const id = (res.body as { id?: string } | null)?.id;
  if (res.status === 202 && id) c.exports.set(id, 'pending');
}

/** Creators files ingested during the load; the last one goes through the writer elected after the kill. */
const FILES = 4;
const KNOWN_PER_FILE = 40;
const NEW_PER_FILE = 10;

/**
 * Creators CSV files: known creators with followers + 1,000 + i, stamped now (or
 * just after what the store holds, so the merge applies them), and new creators.
 */
export async function prepareUpdates(
  url: string,
  key: string,
  pool: CreatorRef[],
  folder: string,
): Promise<{ files: string[]; rows: Array<IngestedRow & { file: number }> }> {
  mkdirSync(folder, { recursive: true });
  const cols = CREATOR_FILE_COLUMNS;
  const esc = (v: unknown) =>
    v === null || v === undefined ? '' : /[",\n]/.test(String(v)) ? `"${String(v).replaceAll('"', '""')}"` : String(v);
  const rows: Array<IngestedRow & { file: number }> = [];
  const files: string[] = [];
  const now = Date.now();
  for (let f = 0; f < FILES; f++) {
    const lines = [cols.join(',')];
    for (const c of pool.slice(f * KNOWN_PER_FILE, (f + 1) * KNOWN_PER_FILE)) {
      const p = (await call(url, key, 'GET', `/v1/creators/${encodeURIComponent(c.handle)}?platform=${c.platform}`))
        .body as Record<string, unknown>;
      const followers = Number(p['followers'] ?? 0) + 1000 + rows.length;
      const stamp = new Date(Math.max(now, (Date.parse(String(p['updated_at'] ?? '')) || 0) + 60_000)).toISOString();
      rows.push({ ...c, followers, stamp, isNew: false, file: f });
      lines.push(cols.map((k) => esc(k === 'followers' ? followers : k === 'updated_at' ? stamp : p[k])).join(','));
    }
    for (let i = 0; i < NEW_PER_FILE; i++) {
      const handle = `clusterdrill_${f}_${i}`;
      const followers = 10_000 + f * 100 + i;
      const stamp = new Date(now).toISOString();
      rows.push({ platform: 'instagram', handle, followers, stamp, isNew: true, file: f });
      lines.push(
        [
          'instagram',
          handle,
          `Cluster drill ${f}.${i}`,
          'new in the cluster drill',
          'tech',
          'US',
          'Austin',
          'en',
          followers,
          10,
          5,
          'false',
          stamp,
        ]
          .map(esc)
          .join(','),
      );
    }
    const file = join(folder, `creators-cluster-${f}.csv`);
    writeFileSync(file, `${lines.join('\n')}\n`);
    files.push(file);
  }
  return { files, rows };
}
