import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { insertAccount } from '../../data/keys/key.queries.js';
import { DEMO_ACCOUNT_NAME } from '../../data/seed/demo-account.js';
import { Store } from '../../data/store.js';
import { TIMESTAMP_PATTERN } from '../../data/timestamps.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { copySeededStore } from '../helpers/seed-templates.js';
import { TEST_AS_OF } from '../helpers/store.js';

const dir = mkdtempSync(join(tmpdir(), 'cds-cli-model-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function cds(...args: string[]): Promise<CliResult> {
  return runCli(args, {
    cwd: dir,
    env: { ...process.env, CDS_DATA_DIR: join(dir, 'var'), CDS_DEMO: '0', CDS_LOG_LEVEL: 'silent' },
  });
}

it('cds model: labels export, train (unknown handles reported), activate (rescores), list, eval', {
  timeout: 180_000,
}, async () => {
  // the run's seeded store of this size (as `cds seed` makes it), to keep to the commands under test: each CLI process costs seconds
  const dbPath = join(dir, 'var', 'cds.duckdb');
  const demoAccountId = await copySeededStore({ creators: 1500, seed: 42, asOf: TEST_AS_OF }, dbPath);
  const seeded = await Store.open(dbPath);
  await insertAccount(seeded, { account_id: demoAccountId, name: DEMO_ACCOUNT_NAME, plan: 'entry' });
  await seeded.close();
  const exported = await cds('model', 'labels', '--out', 'labels.csv');
  expect(exported.stdout).toMatch(/wrote 1500 labels/);
  expect(readFileSync(join(dir, 'labels.csv'), 'utf8').split('\n')[0]).toBe('platform,handle,label,pattern');
  appendFileSync(join(dir, 'labels.csv'), 'x,@nobody_has_this,1,\n');

  const trained = await cds('model', 'train', '--labels', 'labels.csv', '--name', 'demo-small', '--json');
  expect(trained.code).toBe(0);
  const t = JSON.parse(trained.stdout) as {
    version: string;
    matched: number;
    missing: number;
    missing_listed: string[];
  };
  expect(t).toMatchObject({ version: 'auth-8.1', matched: 1500, missing: 1, missing_listed: ['x:@nobody_has_this'] });

  const activated = await cds('model', 'activate', 'auth-8.1');
  expect(activated.stdout).toMatch(/model auth-8.1 is active; rescored 1,500 creators/);
  const listed = JSON.parse((await cds('model', 'list', '--json')).stdout) as Array<{
    version: string;
    active: boolean;
    builtin: boolean;
    created_at: string;
  }>;
  expect(listed.map((m) => [m.version, m.active, m.builtin])).toEqual([
    ['auth-8.0', false, true],
    ['auth-8.1', true, false],
  ]);
  // the built-in model's time (from its committed file) and a trained one's (from the registry) in the one API format
  for (const m of listed) expect(m.created_at, m.version).toMatch(TIMESTAMP_PATTERN);
  const table = (await cds('model', 'list')).stdout.split('\n');
  expect(table[0]).toMatch(/^version\s+name\s+active\s+builtin\s+created_at\s+auc\s+ece\s+training_sha256$/);
  expect(table.find((line) => line.startsWith('auth-8.1'))).toMatch(/^auth-8\.1\s+demo-small\s+yes\s+\d{4}-/);

  const evaluated = JSON.parse((await cds('model', 'eval', '--labels', 'labels.csv', '--json')).stdout) as {
    model_version: string;
    missing: number;
    report: { auc: number; ece: number; patterns: unknown[] };
  };
  expect(evaluated.model_version).toBe('auth-8.1');
  expect(evaluated.missing).toBe(1);
  expect(evaluated.report.auc).toBeGreaterThan(0.9);
  expect(evaluated.report.patterns.length).toBeGreaterThan(5);

  const store = await Store.open(join(dir, 'var', 'cds.duckdb'), { readOnly: true });
  try {
    const row = await store.one<{
      active: string;
      unscored: number;
    }>(`SELECT (SELECT version FROM authenticity_models WHERE active) AS active,
      (SELECT count(*) FROM creators WHERE authenticity_score IS NULL) AS unscored`);
    expect(row).toEqual({ active: 'auth-8.1', unscored: 0 });
  } finally {
    await store.close();
  }
});

it('cds model activate of an unknown version exits 1 saying what to run', { timeout: 60_000 }, async () => {
  const unknown = await cds('model', 'activate', 'auth-9.9');
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/no model auth-9.9: cds model list shows the versions/);
});
