// `npm run bench -- --only sources`: creators pulled through a configured HTTP
// JSON source from a local server (pages of 1,000, cursor paging, nested fields
// mapped) against the same records loaded from one local NDJSON file, each into
// a fresh store, in the same run.
import { chmodSync, createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { testConfig } from '../config/config.js';
import { NICHES, PLATFORMS } from '../data/seed/reference-data.js';
import type { Store } from '../data/store.js';
import { openBenchStore } from './bench-store.js';
import type { PipelineDefinition, PipelineOutcome } from '../pipelines/engine/pipeline.js';
import { runPipeline } from '../pipelines/engine/runner.js';
import { getPipeline } from '../pipelines/registry.js';
import { filesSource } from '../pipelines/sources/files.source.js';

export interface SourcesBenchResult {
  creators: number;
  page_size: number;
  http_s: number;
  ndjson_s: number;
  http_rows_per_s: number;
  ndjson_rows_per_s: number;
  /** HTTP rate / NDJSON rate (the target: ≥ 0.5). */
  ratio: number;
}

const COUNTRIES = ['US', 'GB', 'IN', 'BR', 'DE'];

/** The API's record for creator i: nested as a partner API would send it. */
function apiRecord(i: number): Record<string, unknown> {
  return {
    id: i,
    network: PLATFORMS[i % PLATFORMS.length],
    username: `bench_creator_${i}`,
    profile: {
      name: `Creator ${i}`,
      bio: `Notes from creator ${i}, on things`,
      country: COUNTRIES[i % COUNTRIES.length],
      language: 'en',
    },
    category: NICHES[i % NICHES.length],
    metrics: { followers: 1000 + ((i * 7919) % 2_000_000), following: i % 3000, posts: i % 2000 },
    verified: i % 11 === 0,
    updated_at: `2026-11-${String(1 + (i % 20)).padStart(2, '0')}T10:00:00Z`,
  };
}

/** The same record as a file carries it, in the entity's columns. */
function fileRecord(r: Record<string, unknown>): Record<string, unknown> {
  const p = r['profile'] as Record<string, unknown>;
  const m = r['metrics'] as Record<string, unknown>;
  return {
    platform: r['network'],
    handle: r['username'],
    display_name: p['name'],
    bio: p['bio'],
    niche: r['category'],
    country: p['country'],
    language: p['language'],
    followers: m['followers'],
    following: m['following'],
    posts_count: m['posts'],
    verified: r['verified'],
    updated_at: r['updated_at'],
  };
}

const FIELDS = {
  platform: 'network',
  handle: 'username',
  display_name: 'profile.name',
  bio: 'profile.bio',
  niche: 'category',
  country: 'profile.country',
  language: 'profile.language',
  followers: { path: 'metrics.followers', convert: 'integer' },
  following: { path: 'metrics.following', convert: 'integer' },
  posts_count: { path: 'metrics.posts', convert: 'integer' },
  verified: { path: 'verified', convert: 'boolean' },
  updated_at: 'updated_at',
};

/** Pages pre-serialised, so the server costs next to nothing: the measure is the pull, not the fake API. */
async function startServer(
  records: ReadonlyArray<Record<string, unknown>>,
  pageSize: number,
): Promise<{ server: Server; url: string }> {
  const pages: string[] = [];
  for (let at = 0; at < records.length; at += pageSize) {
    const next = at + pageSize < records.length ? String(at + pageSize) : null;
    pages.push(JSON.stringify({ data: records.slice(at, at + pageSize), next_cursor: next }));
  }
  const server = createServer((req, res) => {
    const at = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('cursor') ?? 0);
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(pages[at / pageSize] ?? '{"data":[],"next_cursor":null}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

async function timedRun(dir: string, pipeline: (store: Store) => Promise<PipelineOutcome>): Promise<number> {
  const store = await openBenchStore(join(dir, 'cds.duckdb'), { threads: 2 });
  try {
    const started = performance.now();
    const outcome = await pipeline(store);
    const seconds = (performance.now() - started) / 1000;
    const run = outcome.runs[0];
    if (run?.status !== 'succeeded') throw new Error(`bench load failed: ${run?.error ?? 'no run'}`);
    return seconds;
  } finally {
    await store.close();
  }
}

/** Runs the comparison once; answers both times and the ratio of rates. */
export async function runSourcesBench(options: {
  creators?: number;
  pageSize?: number;
  dir: string;
  log?: (line: string) => void;
}): Promise<SourcesBenchResult> {
  const creators = options.creators ?? 100_000;
  const pageSize = options.pageSize ?? 1_000;
  rmSync(options.dir, { recursive: true, force: true });
  mkdirSync(options.dir, { recursive: true });
  const records = Array.from({ length: creators }, (_, i) => apiRecord(i + 1));
  const ndjson = join(options.dir, 'creators.ndjson');
  const out = createWriteStream(ndjson);
  for (const r of records) if (!out.write(`${JSON.stringify(fileRecord(r))}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'close');
  const { server, url } = await startServer(records, pageSize);
  try {
    const sourcesFile = join(options.dir, 'sources.json');
    writeFileSync(
      sourcesFile,
      JSON.stringify({
        sources: {
          'bench-api': {
            kind: 'http_json',
            entity: 'creators',
            base_url: url,
            path: '/creators',
            allow_insecure_localhost: true,
            records: 'data',
            paginator: { type: 'cursor', cursor_path: 'next_cursor', cursor_param: 'cursor' },
            fields: FIELDS,
          },
        },
      }),
    );
    chmodSync(sourcesFile, 0o600);
    const httpDir = join(options.dir, 'http');
    const config = testConfig(httpDir, { CDS_SOURCES: sourcesFile });
    const http: PipelineDefinition = getPipeline('bench-api', config);
    const httpS = await timedRun(httpDir, (store) => runPipeline({ store, config }, http));
    options.log?.(`sources: ${creators} creators over HTTP in ${httpS.toFixed(2)} s`);
    const fileDir = join(options.dir, 'ndjson');
    const fileConfig = testConfig(fileDir);
    const ndjsonS = await timedRun(fileDir, (store) =>
      runPipeline({ store, config: fileConfig }, getPipeline('creators'), {
        source: filesSource([{ entity: 'creators', file: ndjson, format: 'ndjson' }]),
      }),
    );
    options.log?.(`sources: the same from one NDJSON file in ${ndjsonS.toFixed(2)} s`);
    return {
      creators,
      page_size: pageSize,
      http_s: httpS,
      ndjson_s: ndjsonS,
      http_rows_per_s: creators / httpS,
      ndjson_rows_per_s: creators / ndjsonS,
      ratio: ndjsonS / httpS,
    };
  } finally {
    await new Promise((r) => server.close(r));
  }
}
