import type { SyncRunResult } from '../../connectors/warehouse/runner.js';
import type { Config } from '../../config/config.js';
import { commaList, commaListOption, str, UsageError, type CliCommand, type ParsedArgs } from '../command.js';
import { jsonOption, printer } from '../output.js';
import { RUNS_LIMIT_OPTION, runsLimit } from './runs.commands.js';

function destinationArg(a: ParsedArgs): string {
  const name = a.positionals[0];
  if (!name) throw new UsageError('name the destination to sync (see `cds sync list`)');
  return name;
}

/**
 * The destinations file this CLI was given, sent along so that a running server,
 * whose own configuration applies, can say so when the two differ.
 */
function cliDestinations(config?: Readonly<Config>): { cli_destinations_file?: string } {
  return config?.syncDestinationsPath ? { cli_destinations_file: config.syncDestinationsPath } : {};
}

export const syncCommand: CliCommand = {
  name: 'sync',
  maxPositionals: 1,
  usage: 'cds sync <destination> [--tables creators,campaigns,…] [--json]',
  summary: "push the store to a warehouse destination (incremental, from each table's watermark)",
  options: {
    tables: commaListOption("the tables to push (default: the destination's tables)"),
    ...jsonOption('the run'),
  },
  op: 'sync',
  toArgs: (a, config) => ({
    destination: destinationArg(a),
    tables: commaList(str(a, 'tables')),
    ...cliDestinations(config),
  }),
  print: printer<SyncRunResult>({
    columns: ['table', 'rows_read', 'rows_loaded', 'rows_changed', 'watermark_to', 'attempts'],
    rows: (r) => r.tables,
    text: (r) =>
      `sync ${r.run_id} to ${r.destination} (${r.type}) ${r.status}: ${r.rows_changed.toLocaleString('en-US')} rows changed ` +
      `of ${r.rows_read.toLocaleString('en-US')} sent in ${r.seconds.toFixed(1)} s`,
  }),
};

export const syncTestCommand: CliCommand = {
  name: 'sync test',
  maxPositionals: 1,
  usage: 'cds sync test <destination> [--json]',
  summary: 'check that a destination is reachable and writable',
  options: { ...jsonOption('the check') },
  op: 'sync.test',
  toArgs: (a, config) => ({ destination: destinationArg(a), ...cliDestinations(config) }),
  print: printer<{ destination: string }>({ text: (r) => `${r.destination}: ok` }),
};

export const syncListCommand: CliCommand = {
  name: 'sync list',
  maxPositionals: 0,
  usage: 'cds sync list [--json]',
  summary: 'list the configured warehouse destinations',
  options: { ...jsonOption('the destinations') },
  op: 'sync.list',
  toArgs: (_a, config) => cliDestinations(config),
  print: printer({ columns: ['name', 'type', 'schedule', 'tables'] }),
};

export const syncRunsCommand: CliCommand = {
  name: 'sync runs',
  maxPositionals: 1,
  usage: 'cds sync runs [destination] [--limit N] [--json]',
  summary: 'show the latest sync runs',
  options: { ...RUNS_LIMIT_OPTION, ...jsonOption('the runs') },
  op: 'sync.runs',
  toArgs: (a) => ({ destination: a.positionals[0], limit: runsLimit(a) }),
  print: printer({ columns: ['run_id', 'pipeline', 'status', 'started_at', 'rows_read', 'rows_changed', 'error'] }),
};

export const syncCommands: readonly CliCommand[] = [syncCommand, syncTestCommand, syncListCommand, syncRunsCommand];
