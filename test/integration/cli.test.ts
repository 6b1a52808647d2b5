import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../config/config.js';
import { createLogger } from '../../config/logger.js';
import { startService, type RunningService } from '../../server/main.js';

const run = promisify(execFile);
const CDS = resolve('bin/cds.mjs');

interface CliResult { code: number; stdout: string; stderr: string }

async function cds(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CDS, ...args], {
      env: { PATH: process.env['PATH'] ?? '', CDS_DATA_DIR: dataDir, CDS_LOG_LEVEL: 'silent', ...env }, timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let dir: string;
beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'cds-cli-')); });
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

describe('cds CLI', () => {
  it('runs through a bin symlink, as `npx cds` and npm install link it (the path does not end in cds.mjs)', async () => {
    const link = join(dir, 'bin-link', 'cds');
    mkdirSync(join(dir, 'bin-link'), { recursive: true });
    symlinkSync(CDS, link);
    const { stdout } = await run(process.execPath, [link, '--help'], { env: { PATH: process.env['PATH'] ?? '' }, timeout: 60_000 });
    expect(stdout).toContain('usage: cds <command>');
  });

  it('creates and lists keys by opening the store itself when no server runs', async () => {
    const created = await cds(dir, ['keys', 'create', '--account', 'acme', '--plan', 'entry', '--json']);
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout) as { key: string; account_id: string; plan: string };
    expect(key.key).toMatch(/^cds_/);
    expect(key.plan).toBe('entry');
    const listed = await cds(dir, ['keys', 'list', '--json']);
    expect(JSON.parse(listed.stdout)).toHaveLength(1);
    expect(listed.stdout).not.toContain(key.key);
  });

  it('sends admin commands to the running server, which holds the store, and never shows a lock error', async () => {
    const config = testConfig(dir);
    const service: RunningService = await startService(config, { logger: createLogger({ logLevel: 'silent' }) });
    try {
      const created = await cds(dir, ['keys', 'create', '--account', 'beta', '--plan', 'enterprise', '--json']);
      expect(created.stderr).not.toMatch(/lock/i);
      expect(created.code).toBe(0);
      const { account_id } = JSON.parse(created.stdout) as { account_id: string };
      const inServer = await service.store?.one('SELECT plan FROM accounts WHERE account_id = ?', [account_id]);
      expect(inServer).toEqual({ plan: 'enterprise' });
      const revoked = await cds(dir, ['keys', 'revoke', 'key_missing']);
      expect(revoked.code).toBe(1);
      expect(revoked.stderr).toMatch(/no active key with id key_missing/);
    } finally {
      await service.stop();
    }
    const after = await cds(dir, ['keys', 'list', '--account', 'beta', '--json']);
    expect(JSON.parse(after.stdout)).toHaveLength(1);
  });

  it('a worker-only process (CDS_ROLES without server) opens no HTTP port and still takes admin commands', async () => {
    const workerDir = mkdtempSync(join(tmpdir(), 'cds-cli-workers-'));
    const config = testConfig(workerDir, { CDS_ROLES: 'pipelines,webhooks,exports', CDS_DEMO: '0' });
    const service = await startService(config, { logger: createLogger({ logLevel: 'silent' }) });
    try {
      expect(service.url).toBeNull();
      const created = await cds(workerDir, ['keys', 'create', '--account', 'gamma', '--plan', 'entry', '--json']);
      expect(created.code).toBe(0);
      const { account_id } = JSON.parse(created.stdout) as { account_id: string };
      expect(await service.store?.one('SELECT plan FROM accounts WHERE account_id = ?', [account_id])).toEqual({ plan: 'entry' });
    } finally {
      await service.stop();
      rmSync(workerDir, { recursive: true, force: true });
    }
  });

  it('stops on a bad config value with a one-line message naming the variable', async () => {
    const result = await cds(dir, ['keys', 'list'], { PORT: 'eighty' });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/PORT/);
  });

  it('explains usage mistakes with exit code 2', async () => {
    const result = await cds(dir, ['keys', 'create', '--plan', 'entry']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--account is required/);
    expect(result.stderr).toMatch(/usage: cds keys create/);
  });

  it('refuses a second server on the same store with a clear one-line error', async () => {
    const config = testConfig(dir);
    const service = await startService(config, { logger: createLogger({ logLevel: 'silent' }) });
    try {
      const second = await cds(dir, ['start'], { CDS_DEMO: '0', PORT: '0' });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/in use by another process/);
    } finally {
      await service.stop();
    }
  });
});
