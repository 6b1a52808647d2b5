import type { PipelineSource, SourceContext, WorkUnit } from '../engine/pipeline.js';

/**
 * A source whose run is one pull: the runner asks `next` until it answers null,
 * so the pull runs on the first call and the second ends the run. Each call of
 * the factory that made it is a fresh run (the runner builds a source per run).
 */
export function singleUnitSource(
  kind: PipelineSource['kind'],
  pull: (ctx: SourceContext) => Promise<WorkUnit | null>,
): PipelineSource {
  let done = false;
  return {
    kind,
    next: async (ctx) => {
      if (done) return null;
      done = true;
      return pull(ctx);
    },
  };
}
