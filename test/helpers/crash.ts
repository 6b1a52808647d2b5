import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { EntityName } from '../../pipelines/entities/entity.js';
import { childScript } from './child-script.js';

const ROOT = join(import.meta.dirname, '../..');

/**
 * Runs the crash fixture (test/fixtures/pipelines/crash-after-load.child.ts) on the store in
 * `dataDir`: it ingests `file` as `entity` and dies (SIGKILL, no clean-up) when the runner reports
 * the progress step `step`. Fails the test if the child ended any other way.
 */
export async function ingestAndDieAt(
  dataDir: string,
  file: string,
  step: string,
  entity: EntityName = 'creators',
): Promise<void> {
  const child = spawn(
    process.execPath,
    [await childScript('test/fixtures/pipelines/crash-after-load.child.ts'), dataDir, file, step, entity],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const collect = (chunk: Buffer): void => {
    output += chunk.toString();
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, s) => resolve(s)));
  expect(signal, output).toBe('SIGKILL');
  expect(output).not.toContain('done');
}
