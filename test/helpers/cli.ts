import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** What a `cds` command line printed and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

const CDS = join(import.meta.dirname, '../../bin/cds.mjs');

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
