import type { PipelineDefinition } from './engine/pipeline.js';
import { httpJsonSource, type HttpJsonSourceOptions } from './sources/http-json.source.js';

/**
 * Creators pulled from a partner's HTTP JSON API, incrementally from the
 * `updated_since` watermark. Declared per endpoint (it needs a URL), so it is
 * built here rather than listed in the registry.
 */
export function httpCreatorsPipeline(
  name: string,
  source: Omit<HttpJsonSourceOptions, 'entity'>,
  schedule: string | null = '*/5 * * * *',
): PipelineDefinition {
  return {
    name,
    description: `Creators from ${source.url}, incrementally by updated_since`,
    entity: 'creators',
    disposition: 'merge',
    key: ['platform', 'handle'],
    cursor: 'watermark',
    schedule,
    source: () => httpJsonSource({ ...source, entity: 'creators' }),
  };
}
