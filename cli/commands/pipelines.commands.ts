import { resolve } from 'node:path';
import { ENTITY_NAMES } from '../../pipelines/entities/entity.js';
import { RUN_STATUSES, type PipelineOutcome, type RunRecord } from '../../pipelines/engine/pipeline.js';
import { optionalOneOf, str, UsageError, type CliCommand } from '../command.js';
import { jsonOption, printer } from '../output.js';
import {
  describeOutcomes,
  outcomesVerdict,
  RUN_COLUMNS,
  RUNS_LIMIT_OPTION,
  runsLimit,
  runsShowCommand,
} from './runs.commands.js';

export const ingestCommand: CliCommand = {
  name: 'ingest',
  usage: `cds ingest <file…> [--entity ${ENTITY_NAMES.join('|')}] [--json]`,
  summary: 'load CSV, NDJSON, JSON or Parquet files through their entity pipeline (bad rows go to the quarantine)',
  options: {
    entity: { type: 'string', help: 'the entity of every file, when it cannot be told from the file name' },
    ...jsonOption('the runs'),
  },
  op: 'pipelines.ingest',
  toArgs: (a) => {
    if (a.positionals.length === 0) throw new UsageError('name at least one file');
    // The server may run in another folder: send absolute paths.
    return { files: a.positionals.map((f) => resolve(f)), entity: optionalOneOf(a, 'entity', ENTITY_NAMES) ?? null };
  },
  print: printer<PipelineOutcome[]>({ text: (outcomes) => describeOutcomes(outcomes) }),
  verdict: (result) => outcomesVerdict(result as PipelineOutcome[]),
};

export const pipelinesListCommand: CliCommand = {
  name: 'pipelines list',
  maxPositionals: 0,
  usage: 'cds pipelines list [--json]',
  summary: 'list the declared pipelines with their source, key, cursor and schedule (UTC)',
  options: { ...jsonOption('the pipelines') },
  op: 'pipelines.list',
  print: printer({ columns: ['name', 'entity', 'source', 'disposition', 'key', 'cursor', 'schedule'] }),
};

export const pipelinesRunCommand: CliCommand = {
  name: 'pipelines run',
  maxPositionals: 1,
  usage: 'cds pipelines run <name> [--json]',
  summary: 'run a pipeline now (what the scheduler does on its tick)',
  options: { ...jsonOption('the run') },
  op: 'pipelines.run',
  toArgs: (a) => {
    const name = a.positionals[0];
    if (!name) throw new UsageError('name the pipeline (see cds pipelines list)');
    return { name };
  },
  print: printer<PipelineOutcome>({ text: (outcome) => describeOutcomes([outcome]) }),
  verdict: (result) => outcomesVerdict([result as PipelineOutcome]),
};

export const runsCommand: CliCommand = {
  name: 'runs',
  maxPositionals: 0,
  usage: 'cds runs [--pipeline P] [--status running|succeeded|failed|skipped] [--limit N] [--json]',
  summary: 'list recent pipeline runs, newest first',
  options: {
    pipeline: { type: 'string', help: "only this pipeline's runs (see cds pipelines list)" },
    status: { type: 'string', help: `only runs with this status: ${RUN_STATUSES.join(', ')}` },
    ...RUNS_LIMIT_OPTION,
    ...jsonOption('the runs'),
  },
  op: 'runs.list',
  toArgs: (a) => ({
    limit: runsLimit(a),
    pipeline: str(a, 'pipeline') ?? null,
    status: optionalOneOf(a, 'status', RUN_STATUSES) ?? null,
  }),
  print: printer<RunRecord[]>({ columns: ['started_at', ...RUN_COLUMNS] }),
};

/** The pipelines' commands, registered in commands/index.ts. */
export const pipelineCommands: readonly CliCommand[] = [
  ingestCommand,
  pipelinesListCommand,
  pipelinesRunCommand,
  runsCommand,
  runsShowCommand,
];
