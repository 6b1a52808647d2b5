import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { vi } from 'vitest';
import { testConfig } from '../../config/config.js';
import { createLogger } from '../../config/logger.js';
import { copyMigratedStore } from './seed-templates.js';

/** What a `cds` command line printed and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** The `cds` command's script, as the package's `bin` names it. */
export const CDS = join(import.meta.dirname, '../../bin/cds.mjs');

/**
 * The environment of a `cds start` spawned on `dataDir`: this process's own, a
 * port the system picks, no log lines unless `overrides` ask for them.
 */
export function cdsStartEnv(dataDir: string, overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, CDS_DATA_DIR: dataDir, PORT: '0', CDS_LOG_LEVEL: 'silent', ...overrides };
}

/** Runs the real `bin/cds.mjs` as an operator would, in its own process; a non-zero exit is a result, not a throw. */
export async function runCli(
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
): Promise<CliResult> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CDS, ...args], {
      cwd: options.cwd,
      env: options.env,
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * Runs a `cds` command line in this process: the CLI's own entry point, the `main`
 * that bin/cds.mjs calls and whose answer it makes the exit code, with what it
 * writes to stdout and stderr captured. For tests of what the CLI says, where a
 * process per command would cost a second or more each; one at a time (it
 * captures this process's streams).
 */
export async function runCliInProcess(
  args: readonly string[],
  env: Record<string, string | undefined>,
): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => out.push(String(chunk)) > 0);
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => err.push(String(chunk)) > 0);
  // admin commands set a private umask for the files they create: this process's own is put back after
  const umask = process.umask();
  try {
    const { main } = await import('../../cli/cds.js');
    const code = await main(args, env);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
    process.umask(umask);
  }
}

/**
 * Gives `dataDir` (a folder with no store yet) an empty store with every migration
 * applied, a copy of the run's one (test/helpers/seed-templates.ts), so that a
 * command opening it does not spend its time migrating a new file.
 */
export async function withMigratedStore(dataDir: string): Promise<string> {
  await copyMigratedStore(testConfig(dataDir).dbPath);
  return dataDir;
}

/**
 * Runs `body` on the data folder `dataDir` (none there yet) given a migrated store;
 * when `served`, a service holds that store meanwhile, so the CLI goes through its
 * admin channel instead of opening the store itself.
 */
export async function withCliDataDir(
  dataDir: string,
  served: boolean,
  body: (dataDir: string) => Promise<void>,
): Promise<void> {
  await withMigratedStore(dataDir);
  // loaded only here: the files that run the CLI as a process need none of the service
  const { startService } = await import('../../server/main.js');
  const service = served
    ? await startService(testConfig(dataDir), { logger: createLogger({ logLevel: 'silent' }) })
    : null;
  try {
    await body(dataDir);
  } finally {
    await service?.stop();
  }
}

type CliRunner = (dataDir: string, args: string[]) => Promise<CliResult>;

/**
 * `cds` on a data folder with no demo seed and no log lines: `spawned` runs the real
 * process in `cwd`, `here` the CLI's entry point in this process (the exit code is
 * what `main` answers and bin/cds.mjs exits with).
 */
export function cdsRunners(cwd: string): { spawned: CliRunner; here: CliRunner } {
  const env = (dataDir: string) => ({ CDS_DATA_DIR: dataDir, CDS_DEMO: '0', CDS_LOG_LEVEL: 'silent' });
  return {
    spawned: (dataDir, args) => runCli(args, { cwd, env: { ...process.env, ...env(dataDir) } }),
    here: (dataDir, args) => runCliInProcess(args, env(dataDir)),
  };
}
