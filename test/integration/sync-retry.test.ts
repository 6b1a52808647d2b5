import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PostgresConfigSchema } from '../../connectors/postgres/config.js';
import { runSync } from '../../connectors/warehouse/runner.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

let ts: TestStore;
let pg: TestPostgres;

beforeAll(async () => {
  [ts, pg] = await Promise.all([createTestStore({ creators: 60 }), startTestPostgres()]);
});

afterAll(async () => {
  await Promise.all([pg?.cleanup(), ts?.cleanup()]);
});

it("when PostgreSQL restarts during a table's load, the table is retried after a backoff and the run succeeds", async () => {
  const retries: Array<{ table: string; transient: boolean; delay: number }> = [];
  let restarted: Promise<void> | null = null;
  const config = PostgresConfigSchema.parse({
    type: 'postgres',
    url: pg.url,
    connect_timeout_ms: 2000,
    copy_part_rows: 5000,
  });
  const result = await runSync(ts.store, 'warehouse', config, {
    workDir: join(ts.dir, 'sync-tmp'),
    retry: { attempts: 8, baseDelayMs: 250, maxDelayMs: 2000 },
    progress: async (u) => {
      if (restarted === null && u.step.endsWith('follower_history') && u.done > 0) {
        await pg.stop();
        restarted = pg.start();
      }
    },
    onRetry: (table, error, _attempt, delay) => retries.push({ table, transient: error.transient, delay }),
  });
  await restarted;
  expect(result.error).toBeNull();
  expect(result.status).toBe('succeeded');
  expect(retries.length).toBeGreaterThan(0);
  expect(retries.every((r) => r.table === 'follower_history' && r.transient && r.delay >= 0 && r.delay < 2000)).toBe(
    true,
  );
  expect(result.tables.find((t) => t.table === 'follower_history')?.attempts).toBe(retries.length + 1);
  const [pgCount] = await pg.query<{ n: string }>('SELECT count(*) AS n FROM cds.follower_history');
  const storeCount = await ts.store.one<{ n: number }>('SELECT count(*) AS n FROM follower_history');
  expect(Number(pgCount?.n)).toBe(storeCount?.n);
});
