import { z } from 'zod';
import { loadDestinations, DestinationConfigError } from '../../../connectors/warehouse/destinations-file.js';
import { bindDestination, type DestinationConfig } from '../../../connectors/warehouse/registry.js';
import { runSync, selectTables, SyncBusyError } from '../../../connectors/warehouse/runner.js';
import { syncWorkDir } from '../../../connectors/warehouse/scheduler.js';
import { listSyncRuns } from '../../../connectors/warehouse/sync.queries.js';
import { SYNC_TABLE_NAMES } from '../../../connectors/warehouse/tables.js';
import type { Config } from '../../../config/config.js';
import { AdminUserError, defineOp, writerStore, type AdminOp } from '../admin-op.js';

function destinations(config: Readonly<Config>): Map<string, DestinationConfig> {
  try {
    return loadDestinations(config.syncDestinationsPath);
  } catch (error) {
    if (error instanceof DestinationConfigError) throw new AdminUserError(error.message);
    throw error;
  }
}

/**
 * The destinations file the CLI was given when it is not the one in effect here:
 * the CLI reached a running server, whose own configuration applies.
 */
const CliDestinationsFile = z.string().min(1).optional();

function serverConfigNote(config: Readonly<Config>, cliFile: string | undefined): string | null {
  if (!cliFile || cliFile === config.syncDestinationsPath) return null;
  return (
    "the running server's configuration is used " +
    `(${config.syncDestinationsPath ? `its CDS_SYNC_DESTINATIONS is ${config.syncDestinationsPath}` : 'it has no CDS_SYNC_DESTINATIONS'}); ` +
    'set it for the server and restart it, or stop the server to run sync with this environment'
  );
}

function destination(config: Readonly<Config>, name: string, cliFile?: string): DestinationConfig {
  const all = destinations(config);
  const found = all.get(name);
  if (found) return found;
  const note = serverConfigNote(config, cliFile);
  if (all.size === 0)
    throw new AdminUserError(
      note ?? 'no destinations are configured: set CDS_SYNC_DESTINATIONS to a JSON file of them',
    );
  throw new AdminUserError(
    `unknown destination ${name}; configured: ${[...all.keys()].join(', ')}${note ? `; ${note}` : ''}`,
  );
}

/** `cds sync <destination>`: one sync run; a failed run is recorded, then reported as the command's failure. */
export const syncRun = defineOp({
  name: 'sync',
  args: z.strictObject({
    destination: z.string().min(1),
    tables: z.array(z.enum(SYNC_TABLE_NAMES)).min(1).optional(),
    cli_destinations_file: CliDestinationsFile,
  }),
  run: async (ctx, args) => {
    const config = destination(ctx.config, args.destination, args.cli_destinations_file);
    const unconfigured = (args.tables ?? []).filter((t) => !selectTables(config).includes(t));
    if (unconfigured.length > 0)
      throw new AdminUserError(`${args.destination} does not sync ${unconfigured.join(', ')}`);
    try {
      const result = await runSync(writerStore(ctx), args.destination, config, {
        workDir: syncWorkDir(ctx.config),
        tables: args.tables,
        progress: ctx.progress,
      });
      if (result.status === 'failed')
        throw new AdminUserError(`sync run ${result.run_id} failed: ${result.error ?? 'unknown error'}`);
      return result;
    } catch (error) {
      if (error instanceof SyncBusyError) throw new AdminUserError(error.message);
      throw error;
    }
  },
});

/** `cds sync test <destination>`: reachable and writable, or why not. */
export const syncTest = defineOp({
  name: 'sync.test',
  args: z.strictObject({ destination: z.string().min(1), cli_destinations_file: CliDestinationsFile }),
  run: async (ctx, args) => {
    const config = destination(ctx.config, args.destination, args.cli_destinations_file);
    try {
      await bindDestination(config).testConnection();
    } catch (error) {
      const classified = bindDestination(config).classify(error);
      throw new AdminUserError(
        `${args.destination}: ${classified.transient ? 'unreachable for now' : 'cannot work'}: ${classified.message}`,
      );
    }
    return { destination: args.destination, type: config.type, ok: true };
  },
});

/** `cds sync list`: the configured destinations (never their URLs, which may hold a password). */
export const syncList = defineOp({
  name: 'sync.list',
  args: z.strictObject({ cli_destinations_file: CliDestinationsFile }),
  run: async (ctx, args) => {
    const all = destinations(ctx.config);
    const note = all.size === 0 ? serverConfigNote(ctx.config, args.cli_destinations_file) : null;
    if (note) throw new AdminUserError(note);
    return [...all].map(([name, c]) => ({ name, type: c.type, schedule: c.schedule ?? null, tables: selectTables(c) }));
  },
});

/** `cds sync runs [destination]`: the latest sync runs. */
export const syncRuns = defineOp({
  name: 'sync.runs',
  args: z.strictObject({
    destination: z.string().min(1).optional(),
    limit: z.number().int().min(1).max(1000).default(20),
  }),
  run: async (ctx, args) => listSyncRuns(writerStore(ctx), args.destination ?? null, args.limit),
});

export const syncOps: readonly AdminOp[] = [syncRun, syncTest, syncList, syncRuns] as AdminOp[];
