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
import type { Config } from '../../../config/config.js';
import { AdminUserError, defineOp, writerStore } from '../admin-op.js';

/** Failures the user can act on (the file, a variable, the remote API) are printed as they are; their texts carry no secret. */
function asUserError(error: unknown): never {
  if (
    error instanceof SourceConfigError ||
    error instanceof UnknownPipelineError ||
    error instanceof SecretMissingError ||
    error instanceof TerminalSourceError ||
    error instanceof TransientSourceError
  ) {
    throw new AdminUserError(error.message);
  }
  throw error;
}

/** The sources file the CLI was given (`CDS_SOURCES` of its shell), sent along when it reaches a running server. */
const CliSourcesFile = z.string().min(1).optional();
const SourceName = z.object({ name: z.string().min(1), cli_sources_file: CliSourcesFile });

/** Whose configuration a running server used, when the CLI's differs from it; null when they agree. */
function serverSourcesNote(config: Readonly<Config>, cliFile: string | undefined): string | null {
  if (!cliFile || cliFile === config.sourcesPath) return null;
  return (
    "the running server's configuration is used " +
    `(${config.sourcesPath ? `its CDS_SOURCES is ${config.sourcesPath}` : 'it has no CDS_SOURCES'}); ` +
    "set it for the server and restart it, or stop the server to use this shell's"
  );
}

/** `cds sources list`: the configured sources, their auth by variable name, and their committed cursor. */
export const sourcesList = defineOp({
  name: 'sources.list',
  args: z.object({ cli_sources_file: CliSourcesFile }),
  run: async (ctx, args) => {
    const sources = await listSources(ctx.config, ctx.store).catch(asUserError);
    const note = sources.length === 0 ? serverSourcesNote(ctx.config, args.cli_sources_file) : null;
    if (note) throw new AdminUserError(`no sources are configured in the running server: ${note}`);
    return sources;
  },
});

/**
 * `cds sources test <name>`: one page fetched, mapped and validated; nothing written.
 * It writes nothing, so it tests the caller's sources file (which the CLI names);
 * the server resolves the secrets that file names from its own environment.
 */
export const sourcesTest = defineOp({
  name: 'sources.test',
  args: SourceName,
  run: async (ctx, args) => {
    const callers = args.cli_sources_file !== undefined && args.cli_sources_file !== ctx.config.sourcesPath;
    const config = callers ? { ...ctx.config, sourcesPath: args.cli_sources_file ?? null } : ctx.config;
    try {
      return await testSource({ store: writerStore(ctx), config }, args.name);
    } catch (error) {
      if (callers && error instanceof SecretMissingError) {
        throw new AdminUserError(
          `${error.message}: the running server resolves secrets from its own environment, not this shell's; ` +
            "set the variable for the server and restart it, or stop the server to test with this shell's environment",
        );
      }
      return asUserError(error);
    }
  },
});

/** `cds sources run <name>`: a run of the source's pipeline now, as the scheduler would; recorded like every run. */
export const sourcesRun = defineOp({
  name: 'sources.run',
  args: SourceName,
  run: async (ctx, args) => {
    try {
      const note = ctx.config.sourcesPath === null ? serverSourcesNote(ctx.config, args.cli_sources_file) : null;
      if (note) throw new AdminUserError(`no sources are configured in the running server: ${note}`);
      configuredSource(ctx.config, args.name);
      const store = writerStore(ctx);
      const outcome = await runPipeline({ store, config: ctx.config }, getPipeline(args.name, ctx.config), {
        onProgress: ctx.progress,
      });
      return (await withFirstRejects(store, [outcome]))[0] ?? outcome;
    } catch (error) {
      return asUserError(error);
    }
  },
});

/** The sources' admin operations, registered in ops/index.ts. */
export const sourceOps = [sourcesList, sourcesTest, sourcesRun];
