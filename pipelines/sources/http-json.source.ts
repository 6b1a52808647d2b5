import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import type { EntityName } from '../entities/entity.js';
import { ENTITIES } from '../entities/source-entities.js';
import { TransientSourceError } from '../engine/errors.js';
import type { PipelineSource } from '../engine/pipeline.js';

export interface HttpJsonSourceOptions {
  /** Endpoint answering `{"data": [records], "next_cursor": string | null}`. */
  url: string;
  entity: EntityName;
  pageSize?: number;
  /** Attempts per page on transient failures (timeouts, network errors, 429, 5xx). */
  maxAttempts?: number;
  /** First backoff; doubles per attempt, with full jitter. */
  baseDelayMs?: number;
  timeoutMs?: number;
  /** Most pages per run, so one run stays bounded; the watermark carries on next time. */
  maxPages?: number;
}

/** A remote source refused the request for good (4xx other than 429, or a malformed page). */
export class TerminalSourceError extends Error {
  override name = 'TerminalSourceError';
}

/**
 * An HTTP JSON API, pulled incrementally: `updated_since=<watermark>` and page
 * `cursor`s until `next_cursor` is null. Pages are written to one NDJSON file
 * that loads through the normal path; the new watermark (the newest
 * `updated_at` seen) commits with the data, so a failed run retries from the old one.
 */
export function httpJsonSource(options: HttpJsonSourceOptions): PipelineSource {
  let done = false;
  return {
    kind: 'http',
    next: async (ctx) => {
      if (done) return null;
      done = true;
      const dir = join(ctx.config.dataDir, 'http-staging');
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${ctx.pipeline}-${Date.now().toString(36)}.ndjson`);
      const pulled = await pullAll(options, ctx.cursor, file).catch(async (error: unknown) => {
        await rm(file, { force: true });
        throw error;
      });
      if (pulled.records === 0) {
        await rm(file, { force: true });
        return null;
      }
      return {
        source: `http:${options.url}`, batches: [{ entity: options.entity, file, format: 'ndjson' }], dedupeByChecksum: false,
        cursor: pulled.watermark ?? ctx.cursor, settle: async () => rm(file, { force: true }),
      };
    },
  };
}

async function pullAll(o: HttpJsonSourceOptions, since: string | null, file: string): Promise<{ records: number; watermark: string | null }> {
  const out = createWriteStream(file);
  const known = ENTITIES[o.entity].columns.map((c) => c.name);
  let records = 0;
  let watermark = since;
  let cursor: string | null = null;
  try {
    for (let page = 0; page < (o.maxPages ?? 1000); page++) {
      const url = new URL(o.url);
      url.searchParams.set('limit', String(o.pageSize ?? 1000));
      if (since) url.searchParams.set('updated_since', since);
      if (cursor) url.searchParams.set('cursor', cursor);
      const body = await fetchPage(url, o);
      for (const record of body.data) {
        // Only the entity's columns are kept: APIs add fields (ids, links) that a file would be refused for.
        const row = Object.fromEntries(known.map((k) => [k, record[k] ?? null]));
        if (!out.write(`${JSON.stringify(row)}\n`)) await once(out, 'drain');
        const at = typeof record['updated_at'] === 'string' ? record['updated_at'] : null;
        if (at && !Number.isNaN(Date.parse(at)) && (!watermark || Date.parse(at) > Date.parse(watermark))) watermark = at;
        records++;
      }
      cursor = body.next_cursor;
      if (!cursor) break;
    }
  } finally {
    out.end();
    await once(out, 'close');
  }
  return { records, watermark };
}

interface Page {
  data: Array<Record<string, unknown>>;
  next_cursor: string | null;
}

/** One page with retries: transient failures back off (honouring Retry-After), terminal ones stop. */
async function fetchPage(url: URL, o: HttpJsonSourceOptions): Promise<Page> {
  const attempts = o.maxAttempts ?? 5;
  let last = 'no attempt';
  for (let attempt = 1; attempt <= attempts; attempt++) {
    let retryAfterMs: number | null = null;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(o.timeoutMs ?? 15_000), headers: { accept: 'application/json' } });
      if (res.ok) return parsePage(await res.json());
      if (res.status !== 429 && res.status < 500) throw new TerminalSourceError(`${url.origin}${url.pathname} answered ${res.status}`);
      retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      last = `answered ${res.status}`;
      await res.body?.cancel();
    } catch (error) {
      if (error instanceof TerminalSourceError) throw error;
      last = error instanceof Error ? error.message : String(error);
    }
    if (attempt < attempts) await sleep(retryAfterMs ?? backoff(o.baseDelayMs ?? 500, attempt));
  }
  throw new TransientSourceError(`${url.origin}${url.pathname} failed ${attempts} times (last: ${last})`);
}

function parsePage(json: unknown): Page {
  const body = json as Partial<Page> | null;
  if (!body || !Array.isArray(body.data)) throw new TerminalSourceError('page is not {"data": [...], "next_cursor": …}');
  const next = typeof body.next_cursor === 'string' && body.next_cursor !== '' ? body.next_cursor : null;
  return { data: body.data, next_cursor: next };
}

/** Exponential backoff with full jitter: uniform in [0, base·2^(attempt-1)]. */
export function backoff(baseMs: number, attempt: number): number {
  return Math.round(Math.random() * baseMs * 2 ** (attempt - 1));
}

function parseRetryAfter(value: string | null): number | null {
  if (!value) return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.min(60_000, Math.max(0, seconds * 1000));
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.min(60_000, Math.max(0, at - Date.now()));
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
