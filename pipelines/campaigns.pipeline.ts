import type { PipelineDefinition } from './engine/pipeline.js';
import { ENTITIES } from './entities/source-entities.js';
import { inboxSource } from './sources/inbox.source.js';

/** Campaigns from inbox files (campaigns*); merge on campaign_id, newer updated_at wins */
export const campaignsPipeline: PipelineDefinition = {
  name: 'campaigns',
  description: 'Campaigns from inbox files (campaigns*); merge on campaign_id, newer updated_at wins',
  entity: 'campaigns',
  disposition: ENTITIES.campaigns.disposition,
  key: ENTITIES.campaigns.key,
  cursor: 'file-checksum',
  schedule: '* * * * *',
  source: () => inboxSource('campaigns'),
};
