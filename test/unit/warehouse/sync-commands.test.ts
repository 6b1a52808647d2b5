import { describe, expect, it } from 'vitest';
import { syncCommand, syncRunsCommand } from '../../../cli/commands/sync.commands.js';
import { UsageError } from '../../../cli/command.js';

describe('cds sync command line', () => {
  it('names the destination and the tables to sync', () => {
    expect(syncCommand.toArgs?.({ positionals: ['warehouse'], values: { tables: 'creators, campaigns' } })).toEqual({
      destination: 'warehouse',
      tables: ['creators', 'campaigns'],
    });
    expect(syncCommand.toArgs?.({ positionals: ['lake'], values: {} })).toEqual({
      destination: 'lake',
      tables: undefined,
    });
  });

  it('without a destination it is a usage error', () => {
    expect(() => syncCommand.toArgs?.({ positionals: [], values: {} })).toThrow(UsageError);
  });

  it('prints each table and the run summary', () => {
    const out = syncCommand.print?.(
      {
        run_id: 'run_1',
        destination: 'warehouse',
        type: 'postgres',
        status: 'succeeded',
        rows_read: 10,
        rows_loaded: 10,
        rows_changed: 3,
        seconds: 1.25,
        error: null,
        tables: [
          {
            table: 'creators',
            rows_read: 10,
            rows_loaded: 10,
            rows_changed: 3,
            watermark_from: null,
            watermark_to: '2026-11-21 06:00:00',
            attempts: 1,
          },
        ],
      },
      { positionals: [], values: {} },
    );
    expect(out).toContain('creators');
    expect(out).toContain('sync run_1 to warehouse (postgres) succeeded: 3 rows changed of 10 sent in 1.3 s');
    expect(syncRunsCommand.toArgs?.({ positionals: [], values: { limit: '5' } })).toEqual({
      destination: undefined,
      limit: 5,
    });
  });
});
