import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, withCliDataDir, withMigratedStore, type CliResult } from '../helpers/cli.js';

function cds(dataDir: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  return runCli(args, {
    env: { PATH: process.env['PATH'] ?? '', CDS_DATA_DIR: dataDir, CDS_DEMO: '0', CDS_LOG_LEVEL: 'silent', ...env },
  });
}

let dir: string;
let destinations: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cds-sync-cli-'));
  const file = join(dir, 'destinations.json');
  writeFileSync(file, JSON.stringify({ lake: { type: 'files', path: join(dir, 'lake') } }));
  destinations = { CDS_SYNC_DESTINATIONS: file };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('cds sync given CDS_SYNC_DESTINATIONS while a server runs', () => {
  it("says the running server's configuration is used and how to change it, instead of asking to set what is set", async () => {
    await withCliDataDir(join(dir, 'served'), true, async (dataDir) => {
      for (const args of [
        ['sync', 'lake'],
        ['sync', 'test', 'lake'],
        ['sync', 'list'],
      ]) {
        const result = await cds(dataDir, args, destinations);
        expect(result.code).toBe(1);
        expect(result.stderr).toContain(
          "the running server's configuration is used (it has no CDS_SYNC_DESTINATIONS); " +
            'set it for the server and restart it, or stop the server to run sync with this environment',
        );
        expect(result.stderr).not.toContain('set CDS_SYNC_DESTINATIONS to a JSON file');
      }
      // without the variable the CLI has nothing to compare: the plain message stays
      const plain = await cds(dataDir, ['sync', 'lake'], {});
      expect(plain.stderr).toContain('no destinations are configured: set CDS_SYNC_DESTINATIONS');
    });
  });

  it("with no server running, the CLI's own CDS_SYNC_DESTINATIONS is used", async () => {
    const result = await cds(await withMigratedStore(join(dir, 'local')), ['sync', 'test', 'lake'], destinations);
    expect(result).toMatchObject({ code: 0, stdout: 'lake: ok\n' });
  });
});
