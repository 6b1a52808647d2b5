import { basename } from 'node:path';
import type { PipelineOutcome, RunRecord } from '../../pipelines/engine/pipeline.js';
import type { ReportedRun, RunReject } from '../../pipelines/runs.service.js';
import { int, UsageError, type CliCommand, type ParsedArgs } from '../command.js';
import { outcomesExitCode, outcomesSummary } from '../exit-codes.js';
import { fieldLines, jsonOption, printer, table } from '../output.js';

/** `--limit` of a command that lists runs, newest first (`cds runs`, `cds sync runs`): their ops take 1–1000. */
export const RUNS_LIMIT_OPTION = { limit: { type: 'string', help: 'how many runs (1–1000, default 20)' } } as const;

/** The `--limit` of RUNS_LIMIT_OPTION, 20 when not given. */
export const runsLimit = (a: ParsedArgs): number => int(a, 'limit') ?? 20;

/** Faults `cds runs show` prints without `--json`. */
const SHOWN_FAULTS = 20;

/** What the `runs.show` admin op answers. */
interface RunDetail {
  run: RunRecord;
  rejects: RunReject[];
  rejects_total: number;
}

export const runsShowCommand: CliCommand = {
  name: 'runs show',
  usage: 'cds runs show <run_id> [--json]',
  summary: `one run's record and why its rows were rejected (the first ${SHOWN_FAULTS} faults; --json prints every one)`,
  options: { ...jsonOption('the run and every fault') },
  op: 'runs.show',
  toArgs: (a) => {
    const [runId, ...rest] = a.positionals;
    if (!runId) throw new UsageError('name the run (cds runs lists them)');
    if (rest.length > 0) throw new UsageError(`one run at a time, not ${a.positionals.join(' ')}`);
    return { run_id: runId, limit: a.values['json'] ? null : SHOWN_FAULTS };
  },
  print: printer<RunDetail>({ text: describeRun }),
};

function describeRun({ run, rejects, rejects_total: total }: RunDetail): string {
  const fields = Object.entries(run).filter(([k]) => k !== 'warnings');
  const lines = fieldLines([...fields, ...run.warnings.map((w) => ['warning', w] as const)]);
  if (total === 0) return [...lines, '', 'no rejected rows'].join('\n');
  lines.push(
    '',
    `rejected rows: ${run.rows_rejected} (${total} fault(s); a row may have several)`,
    faultTable(rejects),
  );
  if (rejects.length < total) {
    lines.push(
      `showing ${rejects.length} of ${total}; every one: cds runs show ${run.run_id} --json, or GET /v1/runs/${run.run_id}/rejects`,
    );
  }
  return lines.join('\n');
}

/** Faults as a table: file (its base name), line, column, value (shortened), reason. */
function faultTable(rejects: readonly RunReject[]): string {
  return table(
    rejects.map((r) => ({
      file: r.file === null ? null : basename(r.file),
      line: r.line,
      column: r.column,
      value: shorten(r.value),
      reason: r.reason,
    })),
    ['file', 'line', 'column', 'value', 'reason'],
  );
}

function shorten(value: string | null): string | null {
  return value !== null && value.length > 40 ? `${value.slice(0, 39)}…` : value;
}

/**
 * What `cds ingest` adds under its table: each run's warnings, and for a run that
 * rejected rows its first faults and the command that shows them all.
 */
export function rejectsNote(runs: ReadonlyArray<RunRecord & Partial<Pick<ReportedRun, 'first_rejects'>>>): string[] {
  const lines: string[] = [];
  for (const run of runs) {
    for (const w of run.warnings ?? []) lines.push(`warning: ${w}`);
    const first = run.first_rejects ?? [];
    if (run.rows_rejected === 0 || first.length === 0) continue;
    lines.push(
      '',
      `${run.source ?? run.run_id}: ${run.rows_rejected} row(s) rejected; the first faults:`,
      faultTable(first),
      `every fault: cds runs show ${run.run_id}`,
    );
  }
  return lines;
}

/** A run's columns in the CLI's tables (`cds runs`, and after `source` in `cds ingest` and the run commands). */
export const RUN_COLUMNS: readonly string[] = [
  'run_id',
  'pipeline',
  'status',
  'rows_read',
  'rows_loaded',
  'rows_rejected',
  'rows_changed',
  'rows_stale',
  'events_emitted',
  'error',
];

/** The runs of an ingest or a pipeline run as a table, the pipelines skipped, and the rejected rows' first faults. */
export function describeOutcomes(outcomes: readonly PipelineOutcome[], columns = RUN_COLUMNS): string {
  const runs = outcomes.flatMap((o) => o.runs);
  const skipped = outcomes.filter((o) => o.skipped).map((o) => `${o.pipeline}: not run, another run is in flight`);
  if (runs.length === 0 && skipped.length === 0) return 'nothing to load';
  return [...(runs.length ? [table(runs, ['source', ...columns])] : []), ...skipped, ...rejectsNote(runs)].join('\n');
}

/** A failed run exits 1, rejected rows 3, an unchanged source 0 (cli/exit-codes.ts), so scripts can tell. */
export function outcomesVerdict(outcomes: readonly PipelineOutcome[]): { code: number; reason: string | null } {
  const code = outcomesExitCode(outcomes);
  return { code, reason: code === 0 ? null : outcomesSummary(outcomes) };
}
