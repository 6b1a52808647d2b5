import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { CREATOR_COLUMNS, creatorRow, writeCsv } from '../fixtures/pipelines/files.js';

const ROOT = join(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'cds-cli-pipelines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cds(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(ROOT, 'bin/cds.mjs'), ...args],
      { cwd: dir, env: { ...process.env, CDS_DATA_DIR: join(dir, 'var'), CDS_DEMO: '0', CDS_LOG_LEVEL: 'silent' } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

it('cds ingest loads a file by its entity name, cds runs lists the run, cds pipelines list the pipelines', async () => {
  writeCsv(dir, 'creators-cli.csv', CREATOR_COLUMNS, [creatorRow({ handle: '@cli_one' }), creatorRow({ handle: '@cli_bad', platform: 'orkut' })]);
  const ingest = await cds('ingest', 'creators-cli.csv', '--json');
  expect(ingest.stderr).toBe('');
  expect(ingest.code).toBe(0);
  const [outcome] = JSON.parse(ingest.stdout) as Array<{ runs: Array<Record<string, unknown>> }>;
  expect(outcome?.runs[0]).toMatchObject({ status: 'succeeded', rows_loaded: 1, rows_rejected: 1 });

  const runs = await cds('runs', '--json');
  expect(JSON.parse(runs.stdout)).toEqual([expect.objectContaining({ pipeline: 'creators', status: 'succeeded' })]);
  // every status the usage line offers is accepted, `running` included (it was refused once)
  const running = await cds('runs', '--status', 'running', '--json');
  expect(JSON.parse(running.stdout)).toEqual([]);

  const list = await cds('pipelines', 'list', '--json');
  const names = (JSON.parse(list.stdout) as Array<{ name: string; schedule: string | null }>).map((p) => p.name);
  expect(names).toEqual(expect.arrayContaining(['creators', 'posts', 'audience', 'campaign-metrics', 'demo']));
});

it('cds ingest says what to fix when the entity cannot be told from the file name', async () => {
  writeCsv(dir, 'mystery.csv', ['platform'], []);
  const result = await cds('ingest', 'mystery.csv');
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('pass --entity');
});
