import { rm } from 'node:fs/promises';
import type { Config } from '../../config/config.js';
import { wrap, type Store } from '../../data/store.js';
import { UnknownPipelineError } from '../engine/errors.js';
import { dropTempTables, prepareBatch } from '../engine/load-batch.js';
import type { Batch, PipelineDeps } from '../engine/pipeline.js';
import { serialiseLoad } from '../engine/run-lock.js';
import { readCursor } from '../engine/run.queries.js';
import { PIPELINES } from '../registry.js';
import { describeSource } from './config/configured-pipelines.js';
import { loadSources } from './config/sources-file.js';
import type { SourceConfig } from './config/sources-schema.js';
import { pullToStaging } from './http/configured-http.source.js';
import { remoteFileSource } from './remote-file.source.js';

/** One configured source as `cds sources list` shows it: where from, how, and its cursor. No secret, only the variables' names. */
export interface SourceSummary {
  name: string;
  kind: SourceConfig['kind'];
  entity: string;
  schedule: string | null;
  endpoint: string;
  auth: string;
  paginator: string | null;
  /** The committed watermark (HTTP JSON) or file validators (remote file); null before the first load. */
  cursor: string | null;
}

/** The configured sources, by name (none without `CDS_SOURCES`). */
export function configuredSources(config: Readonly<Config>): Map<string, SourceConfig> {
  return loadSources(
    config.sourcesPath,
    PIPELINES.map((p) => p.name),
  );
}

/** A source by name; an unknown one names those there are. */
export function configuredSource(config: Readonly<Config>, name: string): SourceConfig {
  const all = configuredSources(config);
  const found = all.get(name);
  if (found) return found;
  if (all.size === 0)
    throw new UnknownPipelineError(
      'no sources are configured: set CDS_SOURCES to a JSON or YAML file of them (docs/sources.md)',
    );
  throw new UnknownPipelineError(`unknown source ${name}; configured: ${[...all.keys()].join(', ')}`);
}

/** `cds sources list`: every configured source with its committed cursor (read when the store is at hand). */
export async function listSources(config: Readonly<Config>, store: Store | null): Promise<SourceSummary[]> {
  const out: SourceSummary[] = [];
  for (const [name, cfg] of configuredSources(config)) {
    out.push({
      name,
      kind: cfg.kind,
      entity: cfg.entity,
      schedule: cfg.schedule ?? null,
      endpoint: describeSource(cfg),
      auth: describeAuth(cfg),
      paginator: cfg.kind === 'http_json' ? cfg.paginator.type : null,
      cursor: store ? await readCursor(store, name) : null,
    });
  }
  return out;
}

function describeAuth(cfg: SourceConfig): string {
  const a = cfg.auth;
  if (!a) return 'none';
  if (a.type === 'bearer') return `bearer (env ${a.token.env})`;
  if (a.type === 'basic') return `basic (env ${a.password.env})`;
  return `${a.type} ${a.name} (env ${a.key.env})`;
}

/** A row that validation would reject: its record number in the pull and every fault. */
export interface WouldReject {
  record: number;
  faults: Array<{ column: string | null; reason: string }>;
}

/** What `cds sources test` found: the mapped rows of one page (or the files), and what the load would reject. */
export interface SourceTestResult {
  source: string;
  entity: string;
  pages: number;
  rows: number;
  /** The first mapped rows, as the load would read them. */
  sample: Array<Record<string, unknown>>;
  rejected: WouldReject[];
  rejected_total: number;
  note: string;
}

/**
 * Fetches one page (a remote file: the files, ignoring their validators), maps it
 * and validates it the way a run would, in temp tables only: nothing is written,
 * no cursor moves, no run is recorded. Starts from the committed watermark, so it
 * shows what the next run would ask for.
 */
export async function testSource(deps: PipelineDeps, name: string, sampleSize = 10): Promise<SourceTestResult> {
  const cfg = configuredSource(deps.config, name);
  const cursor = await readCursor(deps.store, name);
  const ctx = { ...deps, pipeline: name, cursor, seen: new Set<string>() };
  let batches: Batch[];
  let pages = 1;
  if (cfg.kind === 'http_json') {
    const pull = await pullToStaging(name, cfg, ctx, { maxPages: 1 });
    batches = [{ entity: cfg.entity, file: pull.file, format: 'parquet' }];
    pages = pull.pages;
  } else {
    const unit = await remoteFileSource(name, cfg).next({ ...ctx, cursor: null });
    batches = unit?.batches ?? [];
  }
  try {
    const checked = await checkBatches(deps.store, batches, sampleSize);
    return {
      source: name,
      entity: cfg.entity,
      pages,
      ...checked,
      note: 'nothing was written: no rows loaded, no cursor moved, no run recorded',
    };
  } finally {
    await Promise.all(batches.map((b) => rm(b.file, { force: true })));
  }
}

async function checkBatches(
  store: Store,
  batches: readonly Batch[],
  sampleSize: number,
): Promise<Omit<SourceTestResult, 'source' | 'entity' | 'pages' | 'note'>> {
  const result = {
    rows: 0,
    sample: [] as Array<Record<string, unknown>>,
    rejected: [] as WouldReject[],
    rejected_total: 0,
  };
  for (const batch of batches) {
    await serialiseLoad(store, () =>
      store.withConnection(async (connection) => {
        const c = wrap(connection);
        try {
          const prepared = await prepareBatch(c, batch);
          result.rows += prepared.rows;
          result.sample.push(
            ...(await c.all<Record<string, unknown>>(`SELECT * FROM stg_raw ORDER BY rowid LIMIT ?`, [sampleSize])),
          );
          const faults = await c.all<{ line: number; faults: string }>(
            `SELECT __line AS line, to_json(__err)::VARCHAR AS faults FROM stg_typed WHERE __err IS NOT NULL ORDER BY __rid LIMIT ?`,
            [sampleSize],
          );
          result.rejected.push(
            ...faults.map((f) => ({
              record: Number(f.line) - (batch.format === 'csv' ? 1 : 0),
              faults: readFaults(f.faults),
            })),
          );
          result.rejected_total +=
            (await c.one<{ n: number }>('SELECT count(*)::INTEGER AS n FROM stg_typed WHERE __err IS NOT NULL'))?.n ??
            0;
        } finally {
          await dropTempTables(c);
        }
      }),
    );
  }
  result.sample = result.sample.slice(0, sampleSize);
  return result;
}

function readFaults(json: string): WouldReject['faults'] {
  const list = JSON.parse(json) as Array<{ col: string | null; reason: string }>;
  return list.map((f) => ({ column: f.col, reason: f.reason }));
}
