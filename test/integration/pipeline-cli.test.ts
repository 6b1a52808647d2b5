import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREATOR_COLUMNS, creatorRow, writeCsv } from '../fixtures/pipelines/files.js';
import { cdsRunners, type CliResult, withCliDataDir, withMigratedStore } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cds-cli-pipelines-'));
// a migrated store to start from: what these tests hold is the load, not a new file's migration
beforeAll(() => withMigratedStore(join(dir, 'var')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** stderr without the `store: <path>` header line every admin command prints first. */
const afterStoreLine = (stderr: string): string => stderr.replace(/^store: .*\n/, '');

const { spawned: cdsAt, here: cdsHere } = cdsRunners(dir);

async function cds(...args: string[]): Promise<CliResult> {
  return cdsAt(join(dir, 'var'), args);
}

it('cds ingest loads a file by its entity name, cds runs lists the run, cds pipelines list the pipelines', async () => {
  writeCsv(dir, 'creators-cli.csv', CREATOR_COLUMNS, [
    creatorRow({ handle: '@cli_one' }),
    creatorRow({ handle: '@cli_bad', platform: 'orkut' }),
  ]);
  const ingest = await cds('ingest', 'creators-cli.csv', '--json');
  expect(ingest.stderr).toMatch(/^store: .*cds\.duckdb \(opened by this command\)\n/);
  expect(afterStoreLine(ingest.stderr)).toBe('cds ingest: 1 row(s) rejected into the quarantine\n');
  expect(ingest.code).toBe(3);
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

describe.each([
  { mode: 'no server runs (the CLI opens the store)', served: false },
  { mode: 'a server runs (the CLI goes through the admin channel)', served: true },
])('cds ingest exit codes when $mode', ({ served }) => {
  it('a failed run exits 1, with and without --json; a clean load 0; rejected rows 3; a refused file 1', async () => {
    await withCliDataDir(join(dir, served ? 'exit-served' : 'exit-local'), served, async (dataDir) => {
      const garbage = join(dir, 'garbage.csv');
      writeFileSync(garbage, 'this is not\u0000 a csv\n"unterminated,,\n');
      for (const json of [[], ['--json']]) {
        const failed = await cdsHere(dataDir, ['ingest', garbage, '--entity', 'creators', ...json]);
        expect(failed.code).toBe(1);
        expect(failed.stdout).toContain('failed');
        expect(failed.stderr).toContain('1 of 1 run(s) failed');
      }
      const clean = writeCsv(dir, `creators-clean-${String(served)}.csv`, CREATOR_COLUMNS, [
        creatorRow({ handle: '@exit_clean' }),
      ]);
      const cleanLoad = await cdsHere(dataDir, ['ingest', clean, '--json']);
      expect({ code: cleanLoad.code, stderr: afterStoreLine(cleanLoad.stderr) }).toEqual({ code: 0, stderr: '' });
      const partial = writeCsv(dir, `creators-partial-${String(served)}.csv`, CREATOR_COLUMNS, [
        creatorRow({ handle: '@exit_partial' }),
        creatorRow({ handle: '@exit_bad', platform: 'orkut' }),
      ]);
      const loaded = await cdsHere(dataDir, ['ingest', partial]);
      expect(loaded.code).toBe(3);
      expect(loaded.stderr).toContain('1 row(s) rejected');
      const missing = await cdsHere(dataDir, ['ingest', join(dir, 'creators-missing.csv')]);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain('no such file');
    });
  });
});
