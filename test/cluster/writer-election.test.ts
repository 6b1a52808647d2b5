import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WriterElection } from '../../data/state/writer-election.js';
import { createTestDatabase } from '../helpers/state.js';
import { eventually } from '../helpers/eventually.js';

describe('writer election through a PostgreSQL advisory lock', () => {
  let url = '';
  let close: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    ({ databaseUrl: url, close } = await createTestDatabase());
  });
  afterAll(() => close());

  const candidate = (log: string[], name: string) =>
    new WriterElection(url, {
      pollMs: 200,
      onElected: async () => {
        log.push(`${name} elected`);
      },
      onLost: () => {
        log.push(`${name} lost`);
      },
    });

  it('elects exactly one of two candidates; the standby takes over within a second of the active one ending', async () => {
    const log: string[] = [];
    const a = candidate(log, 'a');
    const b = candidate(log, 'b');
    await a.start();
    await b.start();
    // the standby asks again every poll: after three refusals it still is not elected
    await eventually(() => b.attempts >= 3, 5_000, 'three attempts of the standby');
    expect(log).toEqual(['a elected']);
    expect([a.isActive, b.isActive]).toEqual([true, false]);
    const stopped = Date.now();
    await a.stop();
    await eventually(() => b.isActive, 5_000, 'the standby elected');
    expect(Date.now() - stopped).toBeLessThan(1_000);
    expect(log).toEqual(['a elected', 'b elected']);
    await b.stop();
  });

  it('tells the active writer it lost the lock when its session is ended from outside', async () => {
    const log: string[] = [];
    const a = candidate(log, 'a');
    await a.start();
    expect(a.isActive).toBe(true);
    const { PgState } = await import('../../data/state/pg-state.js');
    const admin = await PgState.open(url);
    try {
      await admin.run(
        `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7202612 AND granted`,
      );
      await eventually(() => log.includes('a lost'), 5_000, 'a lost');
      expect(log).toEqual(['a elected', 'a lost']);
    } finally {
      await admin.close();
      await a.stop();
    }
  });
});
