import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../config/config.js';
import { createLogger } from '../../config/logger.js';
import { COMMANDS } from '../../cli/commands/index.js';
import { startService, type RunningService } from '../../server/main.js';
import { Store } from '../../data/store.js';
import { CDS, runCli, runCliInProcess, withMigratedStore, type CliResult } from '../helpers/cli.js';

const run = promisify(execFile);

function cds(dataDir: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(args, {
    env: { PATH: process.env['PATH'] ?? '', CDS_DATA_DIR: dataDir, CDS_LOG_LEVEL: 'silent', ...env },
  });
}

/**
 * The same command line through the CLI's entry point in this process: for what the
 * CLI says about a mistake, which the tests above also see through a real process.
 */
function cdsHere(dataDir: string, args: string[]): Promise<CliResult> {
  return runCliInProcess(args, { CDS_DATA_DIR: dataDir, CDS_LOG_LEVEL: 'silent' });
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cds-cli-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('cds CLI', () => {
  it('runs through a bin symlink, as `npx cds` and npm install link it (the path does not end in cds.mjs)', async () => {
    const link = join(dir, 'bin-link', 'cds');
    mkdirSync(join(dir, 'bin-link'), { recursive: true });
    symlinkSync(CDS, link);
    const { stdout } = await run(process.execPath, [link, '--help'], {
      env: { PATH: process.env['PATH'] ?? '' },
      timeout: 60_000,
    });
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
    const workerDir = await withMigratedStore(mkdtempSync(join(tmpdir(), 'cds-cli-workers-')));
    const config = testConfig(workerDir, { CDS_ROLES: 'pipelines,webhooks,exports', CDS_DEMO: '0' });
    const service = await startService(config, { logger: createLogger({ logLevel: 'silent' }) });
    try {
      expect(service.url).toBeNull();
      const created = await cds(workerDir, ['keys', 'create', '--account', 'gamma', '--plan', 'entry', '--json']);
      expect(created.code).toBe(0);
      const { account_id } = JSON.parse(created.stdout) as { account_id: string };
      expect(await service.store?.one('SELECT plan FROM accounts WHERE account_id = ?', [account_id])).toEqual({
        plan: 'entry',
      });
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

  it('a busy port is reported before the first start seeds anything', async () => {
    const busy = createNetServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', () => r()));
    const port = (busy.address() as AddressInfo).port;
    const fresh = join(dir, 'busy-port');
    try {
      const result = await cds(fresh, ['start'], { PORT: String(port), HOST: '127.0.0.1', CDS_DEMO_CREATORS: '5000' });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(new RegExp(`port ${port} on 127.0.0.1 is in use by another process`));
      expect(result.stdout + result.stderr).not.toMatch(/seeding/);
      const store = await Store.open(testConfig(fresh).dbPath, { threads: 1 });
      expect(await store.one('SELECT count(*) AS n FROM creators')).toEqual({ n: 0 });
      await store.close();
    } finally {
      busy.close();
    }
  });
});

describe('cds command-line mistakes', () => {
  it('an unknown command says so on stderr with the closest command, and exits 2', async () => {
    const typos = [
      ['strat', 'start'],
      ['keys lst', 'keys list'],
      ['key list', 'keys list'],
      ['runs shw', 'runs show'],
    ] as const;
    for (const [typed, meant] of typos) {
      const result = await cdsHere(dir, typed.split(' '));
      expect(result.code, typed).toBe(2);
      expect(result.stdout, typed).toBe('');
      expect(result.stderr, typed).toContain(`unknown command "${typed}"; did you mean "cds ${meant}"?`);
    }
    const far = await cds(dir, ['frobnicate']);
    expect(far).toMatchObject({ code: 2, stdout: '' });
    expect(far.stderr).toBe('cds: unknown command "frobnicate"\nRun "cds --help" for the list of commands.\n');
  });

  it('a bare cds is a usage mistake (help on stderr, exit 2); --version and -V print the version', async () => {
    const bare = await cdsHere(dir, []);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('usage: cds <command>');
    // --version through the process: the bundle finds package.json from dist/
    for (const [flag, run] of [
      ['--version', cds],
      ['-V', cdsHere],
    ] as const) {
      const version = await run(dir, [flag]);
      expect(version.code, flag).toBe(0);
      expect(version.stdout, flag).toMatch(/^cds \d+\.\d+\.\d+\n$/);
    }
  });

  it('--help and -h work on every command: its usage and each option, exit 0, nothing opened', async () => {
    const helpDir = join(dir, 'help-only');
    // one through a real process, the rest in this process (a process per command would take a minute)
    const lines = [
      { args: ['runs', '--help'], run: cds },
      { args: ['keys', 'create', '-h'], run: cdsHere },
      { args: ['export', '--source', 'search', '--help'], run: cdsHere },
    ];
    for (const { args, run } of lines) {
      const result = await run(helpDir, args);
      expect(result.code, args.join(' ')).toBe(0);
      expect(result.stdout, args.join(' ')).toMatch(/\nusage: cds \w+.*\n\noptions:\n/);
    }
    expect(existsSync(helpDir)).toBe(false);
    for (const command of COMMANDS) {
      for (const flag of ['--help', '-h']) {
        const result = await cdsHere(helpDir, [...command.name.split(' '), flag]);
        expect(result.code, `${command.name} ${flag}`).toBe(0);
        expect(result.stdout, command.name).toContain(`usage: ${command.usage}`);
        for (const option of Object.keys(command.options ?? {}))
          expect(result.stdout, `${command.name} --${option}`).toContain(`--${option}`);
      }
    }
    expect(existsSync(helpDir)).toBe(false);
    const group = await cdsHere(dir, ['keys']);
    expect(group.code).toBe(2);
    expect(group.stderr).toContain('usage: cds keys <command>');
    expect(group.stderr).toContain('cds keys create --account');
  });

  it('every usage mistake exits 2 with the usage line: a bad option value names the allowed ones, with no validation dump', async () => {
    const cases: Array<[string[], RegExp]> = [
      [
        ['runs', '--status', 'bogus'],
        /cds runs: --status must be one of running, succeeded, failed, skipped, not bogus\nusage: cds runs /,
      ],
      [
        ['keys', 'create', '--account', 'a', '--plan', 'gold'],
        /--plan must be one of free, entry, enterprise, not gold\nusage: cds keys create /,
      ],
      [
        ['keys', 'list', '--bogus'],
        /unknown option --bogus \(cds keys list --help lists its options\)\nusage: cds keys list/,
      ],
      [['keys', 'list', '--acount', 'x'], /unknown option --acount; did you mean --account\?/],
      [['keys', 'list', 'extra'], /unexpected argument extra\nusage: cds keys list/],
      [['runs', '--limit', 'many'], /--limit must be a whole number, not many\nusage: cds runs/],
      // refused by the admin operation's own argument schema, not by the command: still a usage mistake
      [['seed', '--creators', '5'], /cds seed: --creators: Too small[^\n]*\nusage: cds seed /],
      [
        ['ingest', 'x.csv', '--entity', 'bogus'],
        /cds ingest: --entity must be one of creators, [^\n]*, not bogus\nusage: cds ingest /,
      ],
      [
        ['ingest', 'x.csv', '--entity', 'creator'],
        /--entity must be one of [^\n]*, not creator; did you mean --entity creators\?\nusage: cds ingest /,
      ],
    ];
    // a data folder each: the last three open a store
    for (const [i, [args, message]] of cases.entries()) {
      const result = await cdsHere(join(dir, `usage-${i}`), args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
      expect(result.stderr, args.join(' ')).not.toMatch(/✖|→ at/);
    }
  });

  it('an argument the running server refuses is a usage mistake too (exit 2, usage line)', async () => {
    const servedDir = await withMigratedStore(mkdtempSync(join(tmpdir(), 'cds-cli-usage-')));
    const service = await startService(testConfig(servedDir), { logger: createLogger({ logLevel: 'silent' }) });
    try {
      const result = await cds(servedDir, ['seed', '--creators', '5']);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/cds seed: --creators: Too small[^\n]*\nusage: cds seed /);
      expect(result.stderr).toContain(`store: ${join(servedDir, 'cds.duckdb')} (in the running server)`);
    } finally {
      await service.stop();
      rmSync(servedDir, { recursive: true, force: true });
    }
  });

  it('says which store an admin command opened, on stderr, so a store created in the wrong folder is seen at once', async () => {
    const result = await cds(dir, ['keys', 'list', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe(`store: ${join(dir, 'cds.duckdb')} (opened by this command)\n`);
    expect(JSON.parse(result.stdout)).toBeInstanceOf(Array);
  });
});

describe('cds export', () => {
  it('without --out says which account it ran as, where the file is on disk and who can download it', async () => {
    const exportDir = await withMigratedStore(mkdtempSync(join(tmpdir(), 'cds-cli-export-')));
    try {
      const seeded = await cds(exportDir, ['seed', '--creators', '100']);
      expect(seeded.code, seeded.stderr).toBe(0);
      const result = await cds(exportDir, [
        'export',
        '--source',
        'search',
        '--filter',
        'platform=instagram',
        '--format',
        'csv',
      ]);
      expect(result.code).toBe(0);
      const lines = result.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^exported \d+ rows as csv \(\d+\.\d MB, sha256 [0-9a-f]{64}\), export (exp_\S+)$/);
      const id = /export (exp_\S+)$/.exec(lines[0] ?? '')?.[1] ?? '';
      expect(lines[1]).toMatch(/^account: {2}demo \(acct_\w+\), the entry plan's cap$/);
      const file = join(exportDir, 'exports', `${id}.csv`);
      expect(lines[2]).toMatch(
        new RegExp(`^file: {5}${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(deleted after \\d{4}-`),
      );
      expect(existsSync(file)).toBe(true);
      expect(lines[3]).toBe(
        `download: /v1/exports/${id}/download with an API key of account demo, or run again with --out FILE to copy it`,
      );

      const out = join(exportDir, 'copy.csv');
      const copied = await cds(exportDir, [
        'export',
        '--source',
        'search',
        '--filter',
        'platform=instagram',
        '--out',
        out,
        '--no-limit',
      ]);
      expect(copied.stdout).toMatch(
        /\naccount: {2}demo \(acct_\w+\), the enterprise cap \(--no-limit\)\nfile: {5}(.+)\n$/,
      );
      expect(copied.stdout).toContain(`file:     ${out}\n`);
      expect(existsSync(out)).toBe(true);

      const typo = await cds(exportDir, ['export', '--source', 'search', '--filter', 'nche=beauty']);
      expect(typo.code).toBe(1);
      expect(typo.stderr.match(/unknown search parameter/g)).toHaveLength(1);

      const nobody = await cds(exportDir, ['export', '--source', 'search', '--account', 'nobody']);
      expect(nobody).toMatchObject({ code: 1 });
      expect(nobody.stderr).toContain('no account nobody');
    } finally {
      rmSync(exportDir, { recursive: true, force: true });
    }
  });
});
