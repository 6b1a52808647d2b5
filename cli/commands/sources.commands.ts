import type { Config } from '../../config/config.js';
import type { PipelineOutcome } from '../../pipelines/engine/pipeline.js';
import type { SourceTestResult } from '../../pipelines/sources/sources.service.js';
import { UsageError, type CliCommand, type ParsedArgs } from '../command.js';
import { jsonOption, printer, table } from '../output.js';
import { describeOutcomes, outcomesVerdict, RUN_COLUMNS } from './runs.commands.js';

/** The sources file of this shell, sent along so a running server can test it, or say whose configuration it used. */
function cliSources(config?: Readonly<Config>): { cli_sources_file?: string } {
  return config?.sourcesPath ? { cli_sources_file: config.sourcesPath } : {};
}

function sourceArg(a: ParsedArgs, config?: Readonly<Config>): { name: string; cli_sources_file?: string } {
  const name = a.positionals[0];
  if (!name) throw new UsageError('name the source (see cds sources list)');
  return { name, ...cliSources(config) };
}

/** A source's run needs no pipeline column: the command names the source, and the source its one pipeline. */
const SOURCE_RUN_COLUMNS = RUN_COLUMNS.filter((c) => c !== 'pipeline');

export const sourcesListCommand: CliCommand = {
  name: 'sources list',
  maxPositionals: 0,
  usage: 'cds sources list [--json]',
  summary:
    'list the sources configured in CDS_SOURCES: kind, entity, schedule (UTC), auth (by variable name) and cursor',
  options: { ...jsonOption('the sources') },
  op: 'sources.list',
  toArgs: (_a, config) => cliSources(config),
  print: printer({ columns: ['name', 'kind', 'entity', 'schedule', 'auth', 'paginator', 'cursor', 'endpoint'] }),
};

export const sourcesTestCommand: CliCommand = {
  name: 'sources test',
  maxPositionals: 1,
  usage: 'cds sources test <name> [--json]',
  summary: 'fetch one page of a source, show the mapped rows and what would be rejected; writes nothing',
  options: { ...jsonOption('the mapped rows and faults') },
  op: 'sources.test',
  toArgs: sourceArg,
  print: printer<SourceTestResult>({
    text: (r) => [
      `${r.source} (${r.entity}): ${r.rows} row(s) mapped from ${r.pages} page(s); the first ${r.sample.length}:`,
      r.sample.length ? table(r.sample, Object.keys(r.sample[0] ?? {})) : '(none)',
      ...(r.rejected_total
        ? [
            '',
            `${r.rejected_total} row(s) would be rejected; the first:`,
            table(
              r.rejected.flatMap((x) =>
                x.faults.map((f) => ({ record: x.record, column: f.column, reason: f.reason })),
              ),
              ['record', 'column', 'reason'],
            ),
          ]
        : ['', 'no row would be rejected']),
      r.note,
    ],
  }),
};

export const sourcesRunCommand: CliCommand = {
  name: 'sources run',
  maxPositionals: 1,
  usage: 'cds sources run <name> [--json]',
  summary: 'pull a configured source now (what its schedule does); the run shows in cds runs',
  options: { ...jsonOption('the run') },
  op: 'sources.run',
  toArgs: sourceArg,
  print: printer<PipelineOutcome>({ text: (o) => describeOutcomes([o], SOURCE_RUN_COLUMNS) }),
  verdict: (result) => outcomesVerdict([result as PipelineOutcome]),
};

/** The sources' commands, registered in commands/index.ts. */
export const sourceCommands: readonly CliCommand[] = [sourcesListCommand, sourcesTestCommand, sourcesRunCommand];
