import { z } from 'zod';
import { NotFoundError } from '../../../data/errors.js';
import { ENTITY_NAMES } from '../../../pipelines/entities/entity.js';
import { UnknownPipelineError } from '../../../pipelines/engine/errors.js';
import { RUN_STATUSES } from '../../../pipelines/engine/pipeline.js';
import { runPipeline } from '../../../pipelines/engine/runner.js';
import { describePipelines, IngestInputError, ingestFiles } from '../../../pipelines/ingest.service.js';
import { getPipeline } from '../../../pipelines/registry.js';
import { SourceConfigError } from '../../../pipelines/sources/config/sources-file.js';
import { listRuns } from '../../../pipelines/runs.queries.js';
import { showRun, withFirstRejects } from '../../../pipelines/runs.service.js';
import { AdminUserError, defineOp, writerStore } from '../admin-op.js';

function asUserError(error: unknown): never {
  if (error instanceof IngestInputError || error instanceof UnknownPipelineError || error instanceof SourceConfigError)
    throw new AdminUserError(error.message);
  throw error;
}

export const pipelinesIngest = defineOp({
  name: 'pipelines.ingest',
  args: z.object({ files: z.array(z.string().min(1)).min(1), entity: z.enum(ENTITY_NAMES).nullish() }),
  run: async (ctx, args) => {
    try {
      const store = writerStore(ctx);
      return await withFirstRejects(
        store,
        await ingestFiles({ store, config: ctx.config }, args.files, args.entity ?? null, ctx.progress),
      );
    } catch (error) {
      return asUserError(error);
    }
  },
});

export const pipelinesList = defineOp({
  name: 'pipelines.list',
  args: z.object({}),
  run: async (ctx) => {
    try {
      return describePipelines(ctx.config);
    } catch (error) {
      return asUserError(error);
    }
  },
});

export const pipelinesRun = defineOp({
  name: 'pipelines.run',
  args: z.object({ name: z.string().min(1) }),
  run: async (ctx, args) => {
    try {
      return await runPipeline({ store: writerStore(ctx), config: ctx.config }, getPipeline(args.name, ctx.config), {
        onProgress: ctx.progress,
      });
    } catch (error) {
      return asUserError(error);
    }
  },
});

export const runsList = defineOp({
  name: 'runs.list',
  args: z.object({
    limit: z.number().int().min(1).max(1000).default(20),
    pipeline: z.string().nullish(),
    status: z.enum(RUN_STATUSES).nullish(),
  }),
  run: async (ctx, args) =>
    listRuns(ctx.state, { limit: args.limit, pipeline: args.pipeline ?? null, status: args.status ?? null }),
});

/**
 * One run and its rejected-row faults (the first `limit`, or every one when null),
 * with their total. The faults live in the analytical store, which on a cluster
 * only the writer holds (`writerStore`).
 */
export const runsShow = defineOp({
  name: 'runs.show',
  args: z.object({ run_id: z.string().min(1), limit: z.number().int().min(1).nullable().default(20) }),
  run: async (ctx, args) => {
    try {
      return await showRun(ctx.state, writerStore(ctx), args.run_id, args.limit);
    } catch (error) {
      if (error instanceof NotFoundError) throw new AdminUserError(`no run ${args.run_id} (cds runs lists them)`);
      throw error;
    }
  },
});

/** The pipelines' admin operations, registered in ops/index.ts. */
export const pipelineOps = [pipelinesIngest, pipelinesList, pipelinesRun, runsList, runsShow];
