import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Batch, PipelineSource, SourceContext, WorkUnit } from '../engine/pipeline.js';
import { singleUnitSource } from './single-unit.source.js';
import { compressionSuffix, formatOf, type FileFormat } from '../engine/stage.js';
import { SourceSecrets } from './config/secrets.js';
import { checkUrl } from './config/sources-file.js';
import type { RemoteFileSourceConfig } from './config/sources-schema.js';
import { describeUrl, getWithRetry, type RequestOptions } from './http/http-request.js';
import { authHeaders, withQueryAuth } from './http/source-auth.js';

/** The validators kept per URL as the pipeline's cursor, so an unchanged file is not fetched again. */
type Validators = Record<string, { etag: string | null; last_modified: string | null }>;

interface Fetched {
  url: string;
  /** Null when the server answered 304 Not Modified. */
  batch: Batch | null;
  validators: Validators[string];
}

/**
 * Remote files (`https://` CSV, NDJSON, JSON or Parquet) fetched with
 * `If-None-Match` / `If-Modified-Since` from the validators the last committed run
 * kept. Files that changed load together in one run, and the new validators commit
 * with them; when every file answers 304 the run is recorded as skipped (unchanged).
 * A file whose bytes were loaded before by this pipeline is skipped by its checksum,
 * for servers that send no validators.
 */
export function remoteFileSource(name: string, cfg: RemoteFileSourceConfig): PipelineSource {
  return singleUnitSource('remote_file', async (ctx) => {
    const secrets = new SourceSecrets(name, ctx.config.secretEnv);
    const known = readValidators(ctx.cursor);
    const fetched: Fetched[] = [];
    try {
      for (const [i, url] of cfg.urls.entries())
        fetched.push(await fetchFile(name, cfg, ctx, secrets, url, i, known[url]));
    } catch (error) {
      await removeAll(fetched);
      throw secrets.scrub(error);
    }
    return toUnit(cfg, fetched, known);
  });
}

function toUnit(cfg: RemoteFileSourceConfig, fetched: readonly Fetched[], known: Validators): WorkUnit {
  const batches = fetched.flatMap((f) => (f.batch ? [f.batch] : []));
  const source = `remote_file:${cfg.urls.map((u) => describeUrl(new URL(u))).join(',')}`.slice(0, 500);
  const validators: Validators = { ...known, ...Object.fromEntries(fetched.map((f) => [f.url, f.validators])) };
  const unit: WorkUnit = {
    source,
    batches,
    dedupeByChecksum: true,
    cursor: JSON.stringify(validators),
    settle: () => removeAll(fetched),
  };
  if (batches.length === 0)
    unit.unchanged = `unchanged since the last pull (the server answered 304 Not Modified for ${fetched.length} file(s))`;
  return unit;
}

async function fetchFile(
  name: string,
  cfg: RemoteFileSourceConfig,
  ctx: SourceContext,
  secrets: SourceSecrets,
  url: string,
  index: number,
  known: Validators[string] | undefined,
): Promise<Fetched> {
  const headers = authHeaders(cfg, secrets);
  if (known?.etag) headers['if-none-match'] = known.etag;
  if (known?.last_modified) headers['if-modified-since'] = known.last_modified;
  const options: RequestOptions = {
    retry: { attempts: cfg.retry.attempts, baseDelayMs: cfg.retry.base_delay_ms, maxDelayMs: cfg.retry.max_delay_ms },
    timeoutMs: cfg.timeout_ms,
    headers,
    redact: (t) => secrets.redact(t),
    onRetry: (reason, attempt, delayMs) =>
      ctx.logger?.warn({ source: name, attempt, delay_ms: delayMs, reason }, `source ${name}: request retried`),
    checkUrl: (u) => checkUrl(u.href, cfg.allow_insecure_localhost),
  };
  const res = await getWithRetry(withQueryAuth(new URL(url), cfg.auth, secrets), options);
  if (res.status === 304 && known) return { url, batch: null, validators: known };
  const format = cfg.format ?? (formatOf(new URL(url).pathname) as FileFormat);
  const dir = join(ctx.config.dataDir, 'source-staging');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, `${name}-${index}-${Date.now().toString(36)}${extensionOf(url, format)}`);
  await pipeline(
    Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
    createWriteStream(file, { mode: 0o600 }),
  );
  return {
    url,
    batch: { entity: cfg.entity, file, format, label: `source ${name}: ${describeUrl(new URL(url))}` },
    validators: { etag: res.headers.get('etag'), last_modified: res.headers.get('last-modified') },
  };
}

/** The staged file keeps the format's extension and a compression suffix, which DuckDB reads the compression from. */
function extensionOf(url: string, format: FileFormat): string {
  return `.${format}${compressionSuffix(new URL(url).pathname)}`;
}

function readValidators(cursor: string | null): Validators {
  if (!cursor) return {};
  try {
    const parsed = JSON.parse(cursor) as unknown;
    return parsed && typeof parsed === 'object' ? (parsed as Validators) : {};
  } catch {
    return {}; // an unreadable cursor only costs one full fetch
  }
}

async function removeAll(fetched: readonly Fetched[]): Promise<void> {
  await Promise.all(fetched.map((f) => (f.batch ? rm(f.batch.file, { force: true }) : undefined)));
}
