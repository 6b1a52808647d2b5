import type { PipelineDefinition } from './engine/pipeline.js';
import { ENTITIES } from './entities/source-entities.js';
import { inboxSource } from './sources/inbox.source.js';

/** Creators' accounts on other platforms from inbox files (linked_accounts*); append links not yet present */
export const linkedAccountsPipeline: PipelineDefinition = {
  name: 'linked-accounts',
  description:
    "Creators' accounts on other platforms from inbox files (linked_accounts*); append links not yet present",
  entity: 'linked_accounts',
  disposition: ENTITIES.linked_accounts.disposition,
  key: ENTITIES.linked_accounts.key,
  cursor: 'file-checksum',
  schedule: '* * * * *',
  source: () => inboxSource('linked_accounts'),
};
