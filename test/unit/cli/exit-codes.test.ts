import { describe, expect, it } from 'vitest';
import { EXIT, outcomesExitCode, outcomesSummary } from '../../../cli/exit-codes.js';
import type { PipelineOutcome, RunRecord } from '../../../pipelines/engine/pipeline.js';

function run(overrides: Partial<RunRecord>): RunRecord {
  return {
    run_id: 'run_1',
    pipeline: 'creators',
    source: 'file:a.csv',
    status: 'succeeded',
    started_at: '2026-11-21T00:00:00Z',
    finished_at: null,
    rows_read: 2,
    rows_loaded: 2,
    rows_rejected: 0,
    rows_changed: 2,
    rows_stale: 0,
    events_emitted: 0,
    error: null,
    warnings: [],
    ...overrides,
  };
}
const outcome = (...runs: RunRecord[]): PipelineOutcome => ({ pipeline: 'creators', runs });

describe('cds ingest exit codes', () => {
  it('every file loaded, or skipped as already loaded, is 0', () => {
    expect(
      outcomesExitCode([outcome(run({})), outcome(run({ status: 'skipped', error: 'already loaded by run_0' }))]),
    ).toBe(EXIT.ok);
    expect(outcomesSummary([outcome(run({}))])).toBeNull();
  });

  it('rows rejected in a loaded file is 3 (partial)', () => {
    expect(outcomesExitCode([outcome(run({ rows_loaded: 1, rows_rejected: 1 }))])).toBe(EXIT.partial);
  });

  it('a failed run is 1, even beside a partial one', () => {
    const outcomes = [
      outcome(run({ rows_rejected: 1 })),
      outcome(run({ status: 'failed', error: 'cannot read csv file' })),
    ];
    expect(outcomesExitCode(outcomes)).toBe(EXIT.failed);
    expect(outcomesSummary(outcomes)).toBe('1 of 2 run(s) failed; 1 row(s) rejected into the quarantine');
  });

  it('a pipeline that did not run because another run was in flight is 1: the file was not loaded', () => {
    const outcomes: PipelineOutcome[] = [{ pipeline: 'creators', skipped: 'already running', runs: [] }];
    expect(outcomesExitCode(outcomes)).toBe(EXIT.failed);
    expect(outcomesSummary(outcomes)).toContain('did not run (another run in flight; try again)');
  });
});
