import { rmSync } from 'node:fs';

/** Nothing to make: vitest.config.ts chose the run's temporary folder (in memory when there is room) before the workers started. */
export function setup(): void {}

/** Removes the run's temporary folder in memory, with whatever a test left in it. */
export function teardown(): void {
  const dir = process.env['CDS_TEST_RUN_TMP'];
  if (dir?.startsWith('/dev/shm/')) rmSync(dir, { recursive: true, force: true });
}
