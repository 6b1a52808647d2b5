import { existsSync, statSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { ENTITY_NAMES, entityForFile, type EntityName } from './entities/entity.js';
import type { LoadProgress, PipelineDefinition, PipelineDeps, PipelineOutcome } from './engine/pipeline.js';
import { runPipeline } from './engine/runner.js';
import { formatOf } from './engine/stage.js';
import type { Config } from '../config/config.js';
import { allPipelines, PIPELINES, pipelineForEntity } from './registry.js';
import { filesSource } from './sources/files.source.js';

/** A file the user named cannot be ingested as asked (missing, unknown entity or format). */
export class IngestInputError extends Error {
  override name = 'IngestInputError';
}

/**
 * `cds ingest <file…> [--entity E]`: each file goes through its entity's
 * pipeline (the same runner the scheduler uses), one run per file. The entity
 * comes from `--entity` or the file name (`creators-2026.csv`).
 */
export async function ingestFiles(
  deps: PipelineDeps,
  files: readonly string[],
  entity?: EntityName | null,
  onProgress?: (p: LoadProgress) => void,
): Promise<PipelineOutcome[]> {
  const batches = files.map((f) => toBatch(f, entity ?? null));
  const outcomes: PipelineOutcome[] = [];
  for (const batch of batches) {
    outcomes.push(
      await runPipeline(deps, pipelineForEntity(batch.entity), { source: filesSource([batch]), onProgress }),
    );
  }
  return outcomes;
}

function toBatch(
  file: string,
  entity: EntityName | null,
): { entity: EntityName; file: string; format: NonNullable<ReturnType<typeof formatOf>> } {
  const path = resolve(file);
  if (!existsSync(path) || !statSync(path).isFile()) throw new IngestInputError(`${file}: no such file`);
  const format = formatOf(path);
  if (!format) throw new IngestInputError(`${file}: unknown format; use .csv, .ndjson/.jsonl, .json or .parquet`);
  const chosen = entity ?? entityForFile(basename(path));
  if (!chosen) {
    throw new IngestInputError(
      `${file}: cannot tell the entity from the name; pass --entity (${ENTITY_NAMES.join(', ')})`,
    );
  }
  return { entity: chosen, file: path, format };
}

/** The declared pipelines, the configured sources included when `config` is given, for `cds pipelines list`. */
export function describePipelines(config?: Readonly<Config>): Array<{
  name: string;
  entity: string | null;
  source: string;
  disposition: string;
  key: string;
  cursor: string;
  schedule: string | null;
  description: string;
}> {
  return allPipelines(config).map((p) => ({
    name: p.name,
    entity: p.entity,
    source: sourceKind(p),
    disposition: p.disposition,
    key: p.key.join(','),
    cursor: p.cursor,
    schedule: p.schedule,
    description: p.description,
  }));
}

/** Where a pipeline's data comes from, in a word. */
function sourceKind(p: PipelineDefinition): string {
  if (p.name === 'demo') return 'demo';
  if (PIPELINES.includes(p)) return 'inbox';
  return p.cursor === 'etag' ? 'remote_file' : 'http_json';
}
