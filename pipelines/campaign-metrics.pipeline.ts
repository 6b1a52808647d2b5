import type { PipelineDefinition } from './engine/pipeline.js';
import { ENTITIES } from './entities/source-entities.js';
import { inboxSource } from './sources/inbox.source.js';

/** Daily campaign metrics from inbox files (campaign_metrics*); merge on (campaign, date, creator) */
export const campaignMetricsPipeline: PipelineDefinition = {
  name: 'campaign-metrics',
  description: 'Daily campaign metrics from inbox files (campaign_metrics*); merge on (campaign, date, creator)',
  entity: 'campaign_metrics',
  disposition: ENTITIES.campaign_metrics.disposition,
  key: ENTITIES.campaign_metrics.key,
  cursor: 'file-checksum',
  schedule: '* * * * *',
  source: () => inboxSource('campaign_metrics'),
};
