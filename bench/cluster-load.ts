// The cluster bench's client side: a fixed mixed read workload (profiles and
// unique searches, so no result cache helps), a closed-loop load over keep-alive
// connections spread round-robin across API processes, and single-client latency.
import { Agent, request } from 'node:http';
import { prng } from '../core/prng.js';
import { percentile } from './stats.js';

/** A creator the workload reads the profile of. */
export interface ProfileTarget {
  handle: string;
  platform: string;
}

/** p50 / p99 over `n` requests, ms. */
export interface Latency {
  p50_ms: number;
  p99_ms: number;
  n: number;
}

/** What a closed-loop run measured. */
export interface LoadResult {
  rps: number;
  ok: number;
  /** Answers other than 200 and failed connections (rate limits would show here). */
  errors: number;
  latency: Latency;
}

const NICHES = ['beauty', 'fashion', 'fitness', 'food', 'travel', 'gaming', 'tech', 'finance', 'music', 'sports'];
const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'BR', 'IN', 'ES', 'IT', 'CA', 'MX'];
const PLATFORMS = ['instagram', 'tiktok', 'youtube'];
const SORTS = ['-followers', '-engagement_rate', '-growth_30d', 'followers', '-authenticity_score'];

/**
 * Request `seq` of the mixed workload: even ones a profile, odd ones a search
 * whose `followers_min` is unique per `seq` (below 199,000 requests), the other
 * filters drawn like shared/tools/search-load.mjs draws them.
 */
export function mixedRequest(seq: number, profiles: readonly ProfileTarget[]): string {
  if (seq % 2 === 0 && profiles.length > 0) {
    const p = profiles[(seq / 2) % profiles.length]!;
    return `/v1/creators/${encodeURIComponent(p.handle)}?platform=${p.platform}`;
  }
  // the same seed, so request `seq` is the same in every run
  const r = prng(seq ^ 0x9e3779b9);
  const pick = (list: readonly string[]): string => list[Math.floor(r() * list.length)]!;
  const q = new URLSearchParams();
  if (r() < 0.7) q.set('niche', pick(NICHES));
  if (r() < 0.6) q.set('country', pick(COUNTRIES));
  if (r() < 0.5) q.set('platform', pick(PLATFORMS));
  const min = 1000 + ((seq * 7919) % 199_000);
  q.set('followers_min', String(min));
  if (r() < 0.3) q.set('followers_max', String(min * 10));
  if (r() < 0.3) q.set('engagement_min', (r() * 3).toFixed(2));
  if (r() < 0.2) q.set('verified', 'true');
  q.set('sort', pick(SORTS));
  q.set('limit', '20');
  return `/v1/creators/search?${q}`;
}

/** Keep-alive HTTP clients, one per API process; requests take the processes and the keys in turn. */
export class RoundRobin {
  private readonly agents: Agent[];
  private turn = 0;

  constructor(
    private readonly bases: readonly string[],
    private readonly keys: readonly string[],
    maxSockets: number,
  ) {
    this.agents = bases.map(() => new Agent({ keepAlive: true, maxSockets }));
  }

  /** GET `path` on the next process in turn; answers the status (0 when the connection failed) and the body. */
  get(path: string, base?: number): Promise<{ status: number; body: string }> {
    const turn = this.turn++;
    const i = base ?? turn % this.bases.length;
    const key = this.keys[turn % this.keys.length]!;
    return new Promise((resolveGet) => {
      const req = request(
        this.bases[i] + path,
        { agent: this.agents[i], headers: { Authorization: `Bearer ${key}` } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolveGet({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
          );
          res.on('error', () => resolveGet({ status: 0, body: '' }));
        },
      );
      req.on('error', () => resolveGet({ status: 0, body: '' }));
      req.end();
    });
  }

  close(): void {
    for (const a of this.agents) a.destroy();
  }
}

/**
 * Closed loop: `concurrency` clients each sending the next request of the
 * workload when their last one answered, for `seconds`. `next` hands out
 * sequence numbers that never repeat across runs (so no cache sees one twice).
 */
export async function closedLoop(
  client: RoundRobin,
  concurrency: number,
  seconds: number,
  next: () => number,
  path: (seq: number) => string,
): Promise<LoadResult> {
  const times: number[] = [];
  let ok = 0;
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const seq = next();
        const t = performance.now();
        const { status } = await client.get(path(seq));
        times.push(performance.now() - t);
        if (status === 200) ok += 1;
        else errors += 1;
      }
    }),
  );
  return { rps: Math.round(ok / ((performance.now() - started) / 1000)), ok, errors, latency: latency(times) };
}

/** One client, one request at a time, after `warmup` unmeasured ones: the latency of `path` alone. */
export async function sequential(client: RoundRobin, path: string, samples: number, warmup: number): Promise<Latency> {
  const times: number[] = [];
  for (let i = 0; i < warmup + samples; i++) {
    const t = performance.now();
    const { status } = await client.get(path);
    if (status !== 200) throw new Error(`${path} answered ${status}`);
    if (i >= warmup) times.push(performance.now() - t);
  }
  return latency(times);
}

export function latency(times: readonly number[]): Latency {
  const at = (q: number): number => Math.round(percentile(times, q, 0) * 100) / 100;
  return { p50_ms: at(0.5), p99_ms: at(0.99), n: times.length };
}
