import type { PipelineDefinition } from './engine/pipeline.js';
import { ENTITIES } from './entities/source-entities.js';
import { inboxSource } from './sources/inbox.source.js';

/** Creator profiles from inbox files (creators*.csv|ndjson|json|parquet) and cds ingest; merge on (platform, handle), newer updated_at wins */
export const creatorsPipeline: PipelineDefinition = {
  name: 'creators',
  description:
    'Creator profiles from inbox files (creators*.csv|ndjson|json|parquet) and cds ingest; merge on (platform, handle), newer updated_at wins',
  entity: 'creators',
  disposition: ENTITIES.creators.disposition,
  key: ENTITIES.creators.key,
  cursor: 'file-checksum',
  schedule: '* * * * *',
  source: () => inboxSource('creators'),
};
