import { z } from 'zod';
import { UnknownPipelineError } from '../../../pipelines/engine/errors.js';
import { runPipeline } from '../../../pipelines/engine/runner.js';
import { getPipeline } from '../../../pipelines/registry.js';
import { SecretMissingError } from '../../../pipelines/sources/config/secrets.js';
import { SourceConfigError } from '../../../pipelines/sources/config/sources-file.js';
import { TerminalSourceError } from '../../../pipelines/sources/http/http-request.js';
import { TransientSourceError } from '../../../pipelines/engine/errors.js';
import { configuredSource, listSources, testSource } from '../../../pipelines/sources/sources.service.js';
import { withFirstRejects } from '../../../pipelines/runs.service.js';
import { AdminUserError, defineOp, writerStore } from '../admin-op.js';

/** Failures the user can act on (the file, a variable, the remote API) are printed as they are; their texts carry no secret. */
function asUserError(error: unknown): never {
  if (error instanceof SourceConfigError || error instanceof UnknownPipelineError || error instanceof SecretMissingError
    || error instanceof TerminalSourceError || error instanceof TransientSourceError) {
    throw new AdminUserError(error.message);
  }
  throw error;
}

const SourceName = z.object({ name: z.string().min(1) });

/** `cds sources list`: the configured sources, their auth by variable name, and their committed cursor. */
export const sourcesList = defineOp({
  name: 'sources.list',
  args: z.object({}),
  run: async (ctx) => listSources(ctx.config, ctx.store).catch(asUserError),
});

/** `cds sources test <name>`: one page fetched, mapped and validated; nothing written. */
export const sourcesTest = defineOp({
  name: 'sources.test',
  args: SourceName,
  run: async (ctx, args) => testSource({ store: writerStore(ctx), config: ctx.config }, args.name).catch(asUserError),
});

/** `cds sources run <name>`: a run of the source's pipeline now, as the scheduler would; recorded like every run. */
export const sourcesRun = defineOp({
  name: 'sources.run',
  args: SourceName,
  run: async (ctx, args) => {
    try {
      configuredSource(ctx.config, args.name);
      const store = writerStore(ctx);
      const outcome = await runPipeline({ store, config: ctx.config }, getPipeline(args.name, ctx.config), { onProgress: ctx.progress });
      return (await withFirstRejects(store, [outcome]))[0] ?? outcome;
    } catch (error) {
      return asUserError(error);
    }
  },
});

/** The sources' admin operations, registered in ops/index.ts. */
export const sourceOps = [sourcesList, sourcesTest, sourcesRun];
