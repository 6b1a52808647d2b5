import { describe, expect, it } from 'vitest';
import { ingestCommand, runsCommand } from '../../../../cli/commands/pipelines.commands.js';
import type { RunRecord } from '../../../../pipelines/engine/pipeline.js';

const run: RunRecord = {
  run_id: 'run_1',
  pipeline: 'creators',
  source: 'file:creators.csv',
  status: 'succeeded',
  started_at: '2026-11-21T00:00:00Z',
  finished_at: '2026-11-21T00:00:01Z',
  rows_read: 1,
  rows_loaded: 1,
  rows_rejected: 0,
  rows_changed: 0,
  rows_stale: 1,
  events_emitted: 0,
  error: null,
  warnings: [],
};
const args = { positionals: [], values: {} };

describe('run tables in the CLI', () => {
  it('cds ingest and cds runs show rows_stale: a row older than the stored one is not silent', () => {
    for (const printed of [
      ingestCommand.print?.([{ pipeline: 'creators', runs: [run] }], args),
      runsCommand.print?.([run], args),
    ]) {
      const [header, row] = (printed ?? '').split('\n');
      const columns = header?.trim().split(/\s+/) ?? [];
      const stale = columns.indexOf('rows_stale');
      expect(stale).toBeGreaterThan(-1);
      expect(row?.trim().split(/\s+/)[stale]).toBe('1');
    }
  });
});
