import type { PipelineDefinition } from './engine/pipeline.js';
import { ENTITIES } from './entities/source-entities.js';
import { inboxSource } from './sources/inbox.source.js';

/** Audience breakdowns from inbox files (audience*); each (creator, dimension) replaced by a snapshot not older than the stored one */
export const audiencePipeline: PipelineDefinition = {
  name: 'audience',
  description:
    'Audience breakdowns from inbox files (audience*); each (creator, dimension) replaced by a snapshot not older than the stored one',
  entity: 'audience',
  disposition: ENTITIES.audience.disposition,
  key: ENTITIES.audience.key,
  cursor: 'file-checksum',
  schedule: '* * * * *',
  source: () => inboxSource('audience'),
};
