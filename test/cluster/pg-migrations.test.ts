import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { PgState } from '../../data/state/pg-state.js';

describe('PostgreSQL migrations', () => {
  it('many processes starting at once on an empty database migrate it once, and all of them open', async () => {
    const server = inject('stateDatabaseUrl');
    const name = `cds_mig_${randomBytes(5).toString('hex')}`;
    const admin = new pg.Client({ connectionString: server });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = server.replace(/\/[^/]*$/, `/${name}`);
    try {
      const states = await Promise.all(Array.from({ length: 6 }, () => PgState.open(url, { max: 2 })));
      const versions = await states[0]!.all<{ version: number; n: number }>(
        'SELECT version, count(*) AS n FROM schema_migrations GROUP BY version ORDER BY version',
      );
      expect(versions.length).toBeGreaterThanOrEqual(3);
      expect(versions.every((v) => v.n === 1)).toBe(true);
      // the DuckDB-compatible functions the shared queries use answer as DuckDB does
      const row = await states[1]!.one<Record<string, unknown>>(`SELECT
          strftime(TIMESTAMP '2026-11-23 04:05:06.789', '%Y-%m-%dT%H:%M:%S.%gZ') AS iso,
          epoch_us(TIMESTAMP '1970-01-01 00:00:01.5') AS us, list_contains(ARRAY['a', 'b']::VARCHAR[], 'b') AS has,
          len(ARRAY[]::VARCHAR[]) AS empty, len(ARRAY[1, 2, 3]) AS three`);
      expect(row).toEqual({ iso: '2026-11-23T04:05:06.789Z', us: 1_500_000, has: true, empty: 0, three: 3 });
      await Promise.all(states.map((s) => s.close()));
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  });
});
