import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CREATOR_COLUMNS, creatorRow, writeCsv } from '../fixtures/pipelines/files.js';
import { cdsRunners, withCliDataDir, withMigratedStore } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'cds-cli-rejects-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const { spawned: cdsAt, here: cdsHere } = cdsRunners(dir);

/** A creators file with one good row, one row with two faults and one with one, plus a column creators do not have. */
function partlyBadFile(name: string): string {
  return writeCsv(
    dir,
    name,
    [...CREATOR_COLUMNS, 'shoe_size'],
    [
      { ...creatorRow({ handle: '@cli_ok' }), shoe_size: 44 },
      { ...creatorRow({ handle: '@cli_two', followers: 'lots', niche: 'astrology' }), shoe_size: 41 },
      { ...creatorRow({ handle: '@cli_one', country: 'XX' }), shoe_size: 40 },
    ],
  );
}

describe.each([
  { mode: 'no server runs', served: false },
  { mode: 'a server runs', served: true },
])('rejected rows on the command line when $mode', ({ served }) => {
  it('cds ingest prints the first faults, the warning and where to see the rest; cds runs show prints the run and every fault', async () => {
    await withCliDataDir(join(dir, served ? 'served' : 'local'), served, async (dataDir) => {
      const file = partlyBadFile(`creators-cli-rejects-${String(served)}.csv`);
      const ingest = await cdsHere(dataDir, ['ingest', file]);
      expect(ingest.code).toBe(3);
      const runId = /cds runs show (run_[0-9a-z]+)/.exec(ingest.stdout)?.[1] ?? '';
      expect(runId).not.toBe('');
      expect(ingest.stdout).toContain('warning: creators-cli-rejects-');
      expect(ingest.stdout).toContain('unknown column(s) shoe_size ignored');
      expect(ingest.stdout).toContain('2 row(s) rejected; the first faults:');
      expect(ingest.stdout).toMatch(/creators-cli-rejects-\w+\.csv\s+3\s+niche\s+astrology\s+not a known niche/);
      expect(ingest.stdout).toMatch(/3\s+followers\s+lots\s+not a valid bigint/);
      expect(ingest.stdout).toMatch(/4\s+country\s+XX\s+not a known ISO 3166-1 alpha-2 country code/);

      const show = await cdsHere(dataDir, ['runs', 'show', runId]);
      expect(show.code).toBe(0);
      expect(show.stdout).toMatch(new RegExp(`run_id\\s+${runId}`));
      expect(show.stdout).toMatch(/rows_rejected\s+2/);
      expect(show.stdout).toContain('rejected rows: 2 (3 fault(s); a row may have several)');
      expect(show.stdout).toMatch(/3\s+followers\s+lots\s+not a valid bigint/);

      const json = JSON.parse((await cdsHere(dataDir, ['runs', 'show', runId, '--json'])).stdout) as {
        run: object;
        rejects: object[];
        rejects_total: number;
      };
      expect(json.run).toMatchObject({
        run_id: runId,
        rows_rejected: 2,
        warnings: [expect.stringContaining('shoe_size')],
      });
      expect(json.rejects_total).toBe(3);
      expect(json.rejects).toEqual([
        { file, line: 3, column: 'niche', value: 'astrology', reason: 'not a known niche' },
        { file, line: 3, column: 'followers', value: 'lots', reason: 'not a valid bigint' },
        { file, line: 4, column: 'country', value: 'XX', reason: 'not a known ISO 3166-1 alpha-2 country code' },
      ]);

      const unknown = await cdsHere(dataDir, ['runs', 'show', 'run_nope']);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toContain('cds runs show: no run run_nope (cds runs lists them)\n');
      expect((await cdsHere(dataDir, ['runs', 'show'])).code).toBe(2);
    });
  });
});

it('cds runs show prints the first 20 faults and says how to get the rest', async () => {
  const dataDir = await withMigratedStore(join(dir, 'many'));
  const rows = Array.from({ length: 25 }, (_, i) => creatorRow({ handle: `@cli_many_${i}`, followers: 'lots' }));
  const ingest = await cdsAt(dataDir, ['ingest', writeCsv(dir, 'creators-cli-many.csv', CREATOR_COLUMNS, rows)]);
  const runId = /cds runs show (run_[0-9a-z]+)/.exec(ingest.stdout)?.[1] ?? '';
  expect(ingest.stdout.match(/not a valid bigint/g)).toHaveLength(5);
  const show = await cdsAt(dataDir, ['runs', 'show', runId]);
  expect(show.stdout.match(/not a valid bigint/g)).toHaveLength(20);
  expect(show.stdout).toContain(
    `showing 20 of 25; every one: cds runs show ${runId} --json, or GET /v1/runs/${runId}/rejects`,
  );
});
