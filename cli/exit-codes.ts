import type { PipelineOutcome } from '../pipelines/engine/pipeline.js';

/**
 * The `cds` exit codes, documented in README's CLI section. Scripts and cron
 * jobs branch on them, so a number never changes meaning.
 */
export const EXIT = {
  /** Done: every file loaded with no row rejected. */
  ok: 0,
  /** A run or operation failed, a file was refused, or a pipeline did not run. */
  failed: 1,
  /** A usage mistake: unknown option, missing argument. */
  usage: 2,
  /** Loaded, but some rows were rejected into the quarantine. */
  partial: 3,
} as const;

/**
 * The exit code of `cds ingest` and `cds pipelines run`: a failed run or a
 * pipeline that did not run (another run in flight) is a failure; rejected rows
 * in otherwise loaded files are a partial load. A file skipped because the same
 * bytes were loaded before counts as done.
 */
export function outcomesExitCode(outcomes: readonly PipelineOutcome[]): number {
  const runs = outcomes.flatMap((o) => o.runs);
  if (outcomes.some((o) => o.skipped) || runs.some((r) => r.status === 'failed')) return EXIT.failed;
  if (runs.some((r) => r.rows_rejected > 0)) return EXIT.partial;
  return EXIT.ok;
}

/** One stderr line saying why the exit code is not 0 (stdout may be JSON a script parses). */
export function outcomesSummary(outcomes: readonly PipelineOutcome[]): string | null {
  const runs = outcomes.flatMap((o) => o.runs);
  const failed = runs.filter((r) => r.status === 'failed').length;
  const notRun = outcomes.filter((o) => o.skipped).length;
  const rejected = runs.reduce((n, r) => n + r.rows_rejected, 0);
  const parts = [
    failed ? `${failed} of ${runs.length} run(s) failed` : '',
    notRun ? `${notRun} pipeline(s) did not run (another run in flight; try again)` : '',
    rejected ? `${rejected} row(s) rejected into the quarantine` : '',
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : null;
}
