import type { PipelineDefinition } from './engine/pipeline.js';
import { ENTITIES } from './entities/source-entities.js';
import { inboxSource } from './sources/inbox.source.js';

/** Samples of creators' follower ids from inbox files (follower_samples*); a file replaces the sample of each creator it names */
export const followerSamplesPipeline: PipelineDefinition = {
  name: 'follower-samples',
  description:
    "Samples of creators' follower ids from inbox files (follower_samples*); a file replaces the sample of each creator it names",
  entity: 'follower_samples',
  disposition: ENTITIES.follower_samples.disposition,
  key: ENTITIES.follower_samples.key,
  cursor: 'file-checksum',
  schedule: '* * * * *',
  source: () => inboxSource('follower_samples'),
};
