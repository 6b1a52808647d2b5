import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { PipelineSource, SourceContext, WorkUnit } from '../../engine/pipeline.js';
import { singleUnitSource } from '../single-unit.source.js';
import { SourceSecrets } from '../config/secrets.js';
import { checkUrl } from '../config/sources-file.js';
import type { HttpJsonSourceConfig } from '../config/sources-schema.js';
import { describeUrl, getWithRetry, Pacer, TerminalSourceError, type RequestOptions } from './http-request.js';
import { paginatorFor } from './paginators.js';
import { authHeaders, withQueryAuth } from './source-auth.js';
import { compileMapping, MappingError, readPath, type RecordMapper } from './record-mapping.js';
import { RecordStaging } from './record-staging.js';

/** A run's limits for `cds sources test`: one page, and where its rows go. */
export interface PullLimits {
  maxPages?: number;
}

/** What one pull staged. */
export interface Pull {
  file: string;
  rows: number;
  pages: number;
  /** The largest incremental cursor value seen, or the one the pull started from. */
  watermark: string | null;
  /** Where the pull started (no query string: it may carry a key). */
  endpoint: string;
}

/**
 * A configured HTTP JSON API (docs/sources.md): pages walked by its paginator,
 * records found by its selector and mapped to the entity's columns, all staged
 * into one file that loads through the normal path in one transaction with
 * the new watermark. A record that does not fit the mapping fails the whole run,
 * naming the page, the record and the field; nothing of the pull is loaded.
 */
export function configuredHttpSource(name: string, cfg: HttpJsonSourceConfig, limits: PullLimits = {}): PipelineSource {
  return singleUnitSource('http', async (ctx) => {
    const pull = await pullToStaging(name, cfg, ctx, limits);
    const unit: WorkUnit = {
      source: `http:${pull.endpoint}`,
      batches: [
        {
          entity: cfg.entity,
          file: pull.file,
          format: 'parquet',
          label: `source ${name}: ${pull.endpoint}, ${pull.pages} page(s); line = the record's number in the pull`,
        },
      ],
      dedupeByChecksum: false,
      settle: async () => rm(pull.file, { force: true }),
    };
    if (cfg.incremental) unit.cursor = pull.watermark;
    if (pull.rows === 0) {
      unit.unchanged =
        ctx.cursor && cfg.incremental
          ? `no new records since ${cfg.incremental.cursor_field} ${ctx.cursor}`
          : 'the API answered no records';
      delete unit.cursor;
    }
    return unit;
  });
}

/** Pulls every page into a staging Parquet file (removed again when the pull fails). Errors carry no secret. */
export async function pullToStaging(
  name: string,
  cfg: HttpJsonSourceConfig,
  ctx: SourceContext,
  limits: PullLimits = {},
): Promise<Pull> {
  const secrets = new SourceSecrets(name, ctx.config.secretEnv);
  const dir = join(ctx.config.dataDir, 'source-staging');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${name}-${Date.now().toString(36)}-${process.pid}.parquet`);
  try {
    return await pullPages(name, cfg, ctx, secrets, file, limits);
  } catch (error) {
    await rm(file, { force: true });
    throw secrets.scrub(error);
  }
}

async function pullPages(
  name: string,
  cfg: HttpJsonSourceConfig,
  ctx: SourceContext,
  secrets: SourceSecrets,
  file: string,
  limits: PullLimits,
): Promise<Pull> {
  const request = requestOptions(name, cfg, ctx, secrets);
  const mapper = compileMapping(cfg.entity, cfg.fields, new Date().toISOString());
  const paginator = paginatorFor(cfg.paginator);
  const start = startUrl(cfg, secrets, ctx.cursor);
  const staging = new RecordStaging(file, mapper.columns);
  let watermark = ctx.cursor ?? cfg.incremental?.initial ?? null;
  let url: URL | null = paginator.first(start);
  let pages = 0;
  try {
    while (url && pages < (limits.maxPages ?? cfg.max_pages)) {
      pages++;
      const res = await getWithRetry(withQueryAuth(url, cfg.auth, secrets), request);
      const body = await readBody(res, pages);
      const records = recordsOf(body, cfg.records, pages);
      watermark = await stageRecords(records, pages, mapper, staging, cfg, watermark);
      const next = paginator.next({ url, body, headers: res.headers, records: records.length });
      if (next && next.href === url.href)
        throw new TerminalSourceError(
          `page ${pages}: the paginator did not advance (the next page is the same request)`,
        );
      url = next;
    }
    await staging.finish(ctx.store);
  } catch (error) {
    await staging.discard();
    throw error;
  }
  return { file, rows: staging.rows, pages, watermark, endpoint: describeUrl(start) };
}

function requestOptions(
  name: string,
  cfg: HttpJsonSourceConfig,
  ctx: SourceContext,
  secrets: SourceSecrets,
): RequestOptions {
  return {
    retry: { attempts: cfg.retry.attempts, baseDelayMs: cfg.retry.base_delay_ms, maxDelayMs: cfg.retry.max_delay_ms },
    timeoutMs: cfg.timeout_ms,
    headers: authHeaders(cfg, secrets),
    pacer: new Pacer(cfg.rate_limit?.requests_per_second ?? null),
    redact: (text) => secrets.redact(text),
    onRetry: (reason, attempt, delayMs) =>
      ctx.logger?.warn({ source: name, attempt, delay_ms: delayMs, reason }, `source ${name}: request retried`),
    checkUrl: (u) => checkUrl(u.href, cfg.allow_insecure_localhost),
  };
}

/** The first page's URL: base, path, the configured parameters and the watermark. */
function startUrl(cfg: HttpJsonSourceConfig, secrets: SourceSecrets, cursor: string | null): URL {
  const path = cfg.path === '' ? '' : cfg.path.startsWith('/') ? cfg.path : `/${cfg.path}`;
  const url = new URL(`${cfg.base_url.replace(/\/+$/, '')}${path}`);
  for (const [key, value] of Object.entries(cfg.params)) url.searchParams.set(key, secrets.value(value));
  const since = cursor ?? cfg.incremental?.initial;
  if (cfg.incremental && since !== undefined) url.searchParams.set(cfg.incremental.param, since);
  return url;
}

async function readBody(res: Response, page: number): Promise<unknown> {
  const text = await res.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new MappingError(
      `page ${page}: the answer is not JSON (${text.length} bytes starting ${JSON.stringify(text.slice(0, 30))})`,
    );
  }
}

function recordsOf(body: unknown, selector: string | undefined, page: number): unknown[] {
  let records: unknown;
  try {
    records = selector ? readPath(body, selector) : body;
  } catch (error) {
    throw new MappingError(`page ${page}: records (${selector}): ${(error as Error).message}`);
  }
  if (records === undefined || records === null) return []; // APIs leave the list out when it is empty
  if (!Array.isArray(records))
    throw new MappingError(`page ${page}: records (${selector ?? 'the body'}) is not a list`);
  return records;
}

async function stageRecords(
  records: readonly unknown[],
  page: number,
  mapper: RecordMapper,
  staging: RecordStaging,
  cfg: HttpJsonSourceConfig,
  watermark: string | null,
): Promise<string | null> {
  let newest = watermark;
  for (const [i, record] of records.entries()) {
    await staging.write(mapper.map(record, { page, index: i + 1 }));
    if (cfg.incremental) newest = later(newest, cursorValue(record, cfg.incremental.cursor_field, page, i + 1));
  }
  return newest;
}

function cursorValue(record: unknown, field: string, page: number, index: number): string | null {
  let value: unknown;
  try {
    value = readPath(record, field);
  } catch (error) {
    throw new MappingError(
      `page ${page}, record ${index}: incremental cursor_field ${field}: ${(error as Error).message}`,
    );
  }
  if (value === undefined || value === null || value === '') return null;
  if (typeof value !== 'string' && typeof value !== 'number') {
    throw new MappingError(`page ${page}, record ${index}: incremental cursor_field ${field}: not a single value`);
  }
  return String(value);
}

/**
 * The later of two cursor values: as numbers when both are numbers, as times when
 * both are times, else as text (ISO times and zero-padded ids sort as text too).
 */
export function later(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  const [na, nb] = [Number(a), Number(b)];
  if (a.trim() !== '' && b.trim() !== '' && Number.isFinite(na) && Number.isFinite(nb)) return nb > na ? b : a;
  const [ta, tb] = [Date.parse(a), Date.parse(b)];
  if (!Number.isNaN(ta) && !Number.isNaN(tb)) return tb > ta ? b : a;
  return b > a ? b : a;
}
