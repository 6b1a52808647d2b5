import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import type { EntityName } from '../entities/entity.js';
import { ENTITIES } from '../entities/source-entities.js';
import { backoffDelay } from '../../core/retry-policy.js';
import { getWithRetry, TerminalSourceError } from './http/http-request.js';
import type { PipelineSource } from '../engine/pipeline.js';
import { singleUnitSource } from './single-unit.source.js';

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

export { TerminalSourceError };

/**
 * An HTTP JSON API, pulled incrementally: `updated_since=<watermark>` and page
 * `cursor`s until `next_cursor` is null. Pages are written to one NDJSON file
 * that loads through the normal path; the new watermark (the newest
 * `updated_at` seen) commits with the data, so a failed run retries from the old one.
 */
export function httpJsonSource(options: HttpJsonSourceOptions): PipelineSource {
  return singleUnitSource('http', async (ctx) => {
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
      source: `http:${options.url}`,
      batches: [{ entity: options.entity, file, format: 'ndjson' }],
      dedupeByChecksum: false,
      cursor: pulled.watermark ?? ctx.cursor,
      settle: async () => rm(file, { force: true }),
    };
  });
}

async function pullAll(
  o: HttpJsonSourceOptions,
  since: string | null,
  file: string,
): Promise<{ records: number; watermark: string | null }> {
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
        if (at && !Number.isNaN(Date.parse(at)) && (!watermark || Date.parse(at) > Date.parse(watermark)))
          watermark = at;
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

/** One page with the shared retry policy: transient failures back off (honouring Retry-After), terminal ones stop. */
async function fetchPage(url: URL, o: HttpJsonSourceOptions): Promise<Page> {
  const res = await getWithRetry(url, {
    retry: { attempts: o.maxAttempts ?? 5, baseDelayMs: o.baseDelayMs ?? 500, maxDelayMs: 30_000 },
    timeoutMs: o.timeoutMs ?? 15_000,
  });
  return parsePage(await res.json());
}

function parsePage(json: unknown): Page {
  const body = json as Partial<Page> | null;
  if (!body || !Array.isArray(body.data))
    throw new TerminalSourceError('page is not {"data": [...], "next_cursor": …}');
  const next = typeof body.next_cursor === 'string' && body.next_cursor !== '' ? body.next_cursor : null;
  return { data: body.data, next_cursor: next };
}

/** Exponential backoff with full jitter: uniform in [0, base·2^(attempt-1)] (the shared policy's curve, attempt counted from 1). */
export function backoff(baseMs: number, attempt: number): number {
  return backoffDelay(
    { attempts: attempt + 1, baseDelayMs: baseMs, maxDelayMs: Number.POSITIVE_INFINITY },
    attempt - 1,
  );
}
