import type { PipelineDefinition } from './engine/pipeline.js';
import { ENTITIES } from './entities/source-entities.js';
import { inboxSource } from './sources/inbox.source.js';

/** Creators' contact e-mail and website from inbox files (creator_contacts*); merge on the creator */
export const creatorContactsPipeline: PipelineDefinition = {
  name: 'creator-contacts',
  description: "Creators' contact e-mail and website from inbox files (creator_contacts*); merge on the creator",
  entity: 'creator_contacts',
  disposition: ENTITIES.creator_contacts.disposition,
  key: ENTITIES.creator_contacts.key,
  cursor: 'file-checksum',
  schedule: '* * * * *',
  source: () => inboxSource('creator_contacts'),
};
