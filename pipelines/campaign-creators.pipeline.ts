import type { PipelineDefinition } from './engine/pipeline.js';
import { ENTITIES } from './entities/source-entities.js';
import { inboxSource } from './sources/inbox.source.js';

/** Campaign rosters from inbox files (campaign_creators*); append pairs not yet present */
export const campaignCreatorsPipeline: PipelineDefinition = {
  name: 'campaign-creators',
  description: 'Campaign rosters from inbox files (campaign_creators*); append pairs not yet present',
  entity: 'campaign_creators',
  disposition: ENTITIES.campaign_creators.disposition,
  key: ENTITIES.campaign_creators.key,
  cursor: 'file-checksum',
  schedule: '* * * * *',
  source: () => inboxSource('campaign_creators'),
};
