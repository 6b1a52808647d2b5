import type { PipelineDefinition } from './engine/pipeline.js';
import { demoSource } from './sources/demo.source.js';

/**
 * The demo feed (only when the service runs with demo data): every minute,
 * follower drift, new posts and campaign metrics, through the normal load path.
 */
export const demoPipeline: PipelineDefinition = {
  name: 'demo',
  description: 'Demo feed: follower drift, new posts and campaign metrics every minute (CDS_DEMO=1 only)',
  entity: null,
  disposition: 'merge',
  key: ['platform', 'handle'],
  cursor: 'tick',
  schedule: '* * * * *',
  source: () => demoSource(),
};
