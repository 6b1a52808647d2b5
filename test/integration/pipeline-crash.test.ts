import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Store } from '../../data/store.js';
import { ingestFiles } from '../../pipelines/ingest.service.js';
import { createPipelineWorkers } from '../../pipelines/workers.js';
import { childScript } from '../helpers/child-script.js';
import { createTestStore, type TestStore } from '../helpers/store.js';

const ROOT = join(import.meta.dirname, '../..');
let t: TestStore;

beforeAll(async () => {
  t = await createTestStore({ creators: 500 });
});
afterAll(async () => {
  await t.cleanup();
});

async function fingerprint(store: Store): Promise<string> {
  return JSON.stringify(
    await store.one(`SELECT (SELECT count(*) FROM creators) AS creators,
    (SELECT sum(hash(creator_id, followers, updated_at)) FROM creators) AS h, (SELECT count(*) FROM events) AS events,
    (SELECT count(*) FROM quarantine) AS quarantine, (SELECT count(*) FROM pipeline_runs WHERE status <> 'running') AS runs,
    (SELECT count(*) FROM ingested_files) AS files`),
  );
}

it('when the process is killed mid-load, the reopened store is exactly as before the run', async () => {
  const file = join(t.dir, 'creators-big.csv');
  // Existing creators changed plus many new ones, so the kill lands inside a long transaction.
  await t.store.run(`COPY (
      SELECT platform, handle, display_name, bio, niche, country, city, language, followers + 1 AS followers, "following", posts_count,
        verified, TIMESTAMP '2026-11-21 23:00:00' AS updated_at FROM creators
      UNION ALL
      SELECT 'tiktok', '@crash' || i, 'Crash ' || i, NULL, 'tech', 'US', NULL, 'en', i, NULL, NULL, false, TIMESTAMP '2026-11-21 23:00:00'
      FROM range(600000) t(i)
    ) TO '${file}' (HEADER)`);
  const before = await fingerprint(t.store);
  await t.store.close();

  const child = spawn(
    process.execPath,
    [await childScript('test/fixtures/pipelines/crash-ingest.child.ts'), t.dir, file],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('loading')) resolve();
    });
    child.on('exit', () => reject(new Error(`child ended before loading: ${output}`)));
  });
  await new Promise((r) => setTimeout(r, 300));
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  expect(output).not.toContain('done');

  const reopened = await Store.open(t.config.dbPath, { threads: 2 });
  try {
    expect(await fingerprint(reopened)).toBe(before);
    expect(await reopened.one(`SELECT count(*) AS n FROM creators WHERE handle LIKE '@crash%'`)).toEqual({ n: 0 });
    // The killed run left its `running` record; the next load marks it failed, so `cds runs` shows what happened.
    const killed = await reopened.all<{ run_id: string }>(`SELECT run_id FROM pipeline_runs WHERE status = 'running'`);
    expect(killed).toHaveLength(1);
    const small = join(t.dir, 'creators-one.csv');
    await reopened.run(`COPY (SELECT platform, handle, display_name, bio, niche, country, city, language, followers + 2 AS followers,
        "following", posts_count, verified, TIMESTAMP '2026-11-21 23:30:00' AS updated_at FROM creators LIMIT 1) TO '${small}' (HEADER)`);
    await ingestFiles({ store: reopened, config: t.config }, [small], 'creators');
    const after = await reopened.one<{ status: string; error: string }>(
      'SELECT status, error FROM pipeline_runs WHERE run_id = ?',
      [killed[0]!.run_id],
    );
    expect(after?.status).toBe('failed');
    expect(after?.error).toMatch(/^interrupted/);
  } finally {
    await reopened.close();
  }
});

it('at service start, a run a crash left running is marked failed before any new load', async () => {
  const store = await Store.open(t.config.dbPath, { threads: 2 });
  try {
    await store.run(`INSERT INTO pipeline_runs (run_id, kind, pipeline, source, started_at, status)
      VALUES ('run_crashedstartup00000000', 'pipeline', 'creators', 'cli:x.csv', TIMESTAMP '2026-11-21 10:00:00', 'running')`);
    const workers = createPipelineWorkers({ store, config: t.config });
    const recovery = workers.find((w) => w.name === 'pipeline-run-recovery');
    recovery?.start();
    await recovery?.stop();
    const row = await store.one<{ status: string; error: string }>(
      `SELECT status, error FROM pipeline_runs WHERE run_id = 'run_crashedstartup00000000'`,
    );
    expect(row?.status).toBe('failed');
    expect(row?.error).toMatch(/^interrupted/);
  } finally {
    await store.close();
  }
});
