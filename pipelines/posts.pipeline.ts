import type { PipelineDefinition } from './engine/pipeline.js';
import { ENTITIES } from './entities/source-entities.js';
import { inboxSource } from './sources/inbox.source.js';

/** Posts from inbox files (posts*); merge on (creator, post_id) */
export const postsPipeline: PipelineDefinition = {
  name: 'posts',
  description: 'Posts from inbox files (posts*); merge on (creator, post_id)',
  entity: 'posts',
  disposition: ENTITIES.posts.disposition,
  key: ENTITIES.posts.key,
  cursor: 'file-checksum',
  schedule: '* * * * *',
  source: () => inboxSource('posts'),
};
