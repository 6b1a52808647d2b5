import type { Config } from '../../../config/config.js';
import { ENTITIES } from '../../entities/source-entities.js';
import type { PipelineDefinition } from '../../engine/pipeline.js';
import { configuredHttpSource } from '../http/configured-http.source.js';
import { describeUrl } from '../http/http-request.js';
import { remoteFileSource } from '../remote-file.source.js';
import { loadSources } from './sources-file.js';
import type { SourceConfig } from './sources-schema.js';

/**
 * A source from the sources file as a pipeline named after it: the entity's key
 * and write disposition, the source's schedule (UTC, no overlap, like every
 * pipeline), its watermark or file validators as the pipeline cursor.
 */
export function configuredPipeline(name: string, cfg: SourceConfig): PipelineDefinition {
  const spec = ENTITIES[cfg.entity];
  return {
    name,
    description: cfg.description ?? describeSource(cfg),
    entity: cfg.entity,
    disposition: spec.disposition,
    key: spec.key,
    cursor: cfg.kind === 'remote_file' ? 'etag' : 'watermark',
    schedule: cfg.schedule ?? null,
    source: () => (cfg.kind === 'http_json' ? configuredHttpSource(name, cfg) : remoteFileSource(name, cfg)),
  };
}

/** The configured sources as pipelines; none without `CDS_SOURCES`. Throws `SourceConfigError` on a bad file. */
export function configuredPipelines(config: Readonly<Config>, reserved: readonly string[]): PipelineDefinition[] {
  return [...loadSources(config.sourcesPath, reserved)].map(([name, cfg]) => configuredPipeline(name, cfg));
}

/** One line saying where a source pulls from (no query string: it may carry a key). */
export function describeSource(cfg: SourceConfig): string {
  if (cfg.kind === 'remote_file')
    return `${cfg.entity} from ${cfg.urls.length} remote file(s): ${cfg.urls.map((u) => describeUrl(new URL(u))).join(', ')}`;
  const incremental = cfg.incremental ? `, incrementally by ${cfg.incremental.cursor_field}` : '';
  return `${cfg.entity} from ${describeUrl(new URL(cfg.base_url))}${cfg.path}${incremental}`;
}
