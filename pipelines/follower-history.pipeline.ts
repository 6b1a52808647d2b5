import type { PipelineDefinition } from './engine/pipeline.js';
import { ENTITIES } from './entities/source-entities.js';
import { inboxSource } from './sources/inbox.source.js';

/** Daily follower counts from inbox files (follower_history*); merge on (creator, date) */
export const followerHistoryPipeline: PipelineDefinition = {
  name: 'follower-history',
  description: 'Daily follower counts from inbox files (follower_history*); merge on (creator, date)',
  entity: 'follower_history',
  disposition: ENTITIES.follower_history.disposition,
  key: ENTITIES.follower_history.key,
  cursor: 'file-checksum',
  schedule: '* * * * *',
  source: () => inboxSource('follower_history'),
};
