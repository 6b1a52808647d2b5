import { chmodSync, existsSync, mkdtempSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

/** Room a folder in memory must have free for the run's temporary files to go there. */
const RAM_TMP_MIN_BYTES = 6 * 1024 ** 3;

/**
 * The run's temporary folder. Test files make hundreds of small stores, each
 * commit and checkpoint waiting for the disk: measured on the 2-core machine, 26
 * store-heavy files took 294 s with their stores on disk and 210 s in memory.
 * So the run's temporary files (stores, seeded templates, PostgreSQL data) go to
 * a folder on /dev/shm (a tmpfs) when it has room, passable by every user as
 * /tmp is (PostgreSQL runs as another user under root), removed when the run ends
 * (test/helpers/run-tmp-global-setup.ts). `CDS_TEST_TMPDIR=system` keeps the
 * system's temp folder. Set once: the workers inherit it.
 */
function runTmpDir(): string | undefined {
  if (process.env['CDS_TEST_RUN_TMP']) return process.env['CDS_TEST_RUN_TMP'];
  if (process.env['CDS_TEST_TMPDIR'] === 'system' || !existsSync('/dev/shm')) return undefined;
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.bavail * fs.bsize < RAM_TMP_MIN_BYTES) return undefined;
    const dir = mkdtempSync(join('/dev/shm', 'cds-test-run-'));
    chmodSync(dir, 0o1777);
    return dir;
  } catch {
    return undefined;
  }
}

const RUN_TMP = runTmpDir();
if (RUN_TMP) {
  process.env['CDS_TEST_RUN_TMP'] = RUN_TMP;
  process.env['TMPDIR'] = RUN_TMP;
}

/**
 * API integration tests that also run in cluster mode: the service state on a
 * real PostgreSQL (one server for the run, a database per test file), the
 * analytical store on DuckDB, through the same HTTP requests and assertions.
 */
export const CLUSTER_MODE_TESTS = [
  'test/integration/api-platform.test.ts',
  'test/integration/lists-api.test.ts',
  'test/integration/webhook-api.test.ts',
  'test/integration/webhook-claim.test.ts',
  'test/integration/webhook-crash.test.ts',
  'test/integration/webhook-delivery.test.ts',
  'test/integration/webhook-e2e.test.ts',
  'test/integration/webhook-fanout.test.ts',
  'test/integration/webhook-lifecycle.test.ts',
  'test/integration/webhook-ssrf.test.ts',
  'test/integration/webhook-workers.test.ts',
  'test/integration/api-search.test.ts',
  'test/integration/api-profile.test.ts',
  'test/integration/api-errors.test.ts',
  'test/integration/api-openapi.test.ts',
  'test/integration/campaigns-api.test.ts',
  'test/integration/pipeline-runs-api.test.ts',
  'test/integration/pipeline-rejects-api.test.ts',
  'test/integration/fuzz-api.test.ts',
  'test/integration/numeric-inputs.test.ts',
  'test/integration/api-tls.test.ts',
  'test/integration/rate-limit-cluster.test.ts',
  'test/integration/export-api.test.ts',
  'test/integration/export-formats.test.ts',
  'test/integration/export-worker.test.ts',
  'test/integration/export-lookalikes.test.ts',
  'test/integration/openapi-responses.test.ts',
  'test/integration/export-cluster.test.ts',
  'test/integration/export-capacity.test.ts',
  'test/integration/verify-api.test.ts',
  'test/integration/keys-api.test.ts',
  'test/integration/usage-api.test.ts',
  'test/integration/paging-cursors.test.ts',
  'test/integration/search-filters.test.ts',
  'test/integration/api-timestamps.test.ts',
  'test/integration/auth-throttle.test.ts',
  'test/integration/contacts-api.test.ts',
  'test/integration/api-suggest.test.ts',
  'test/integration/export-types.test.ts',
];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 2,
    // A worker process runs its files one after another with the modules it has
    // loaded: importing the service (hundreds of modules through the transform)
    // cost each file 2–4 s, over a third of the suite's time. Tests share no state
    // through modules: each makes its own stores, apps and folders, and restores
    // what it changes of the process (spies, umask).
    isolate: false,
    reporters: ['default'],
    // each demo seed the tests ask for is made once per run and copied (test/helpers/seed-templates.ts)
    // the run's temporary folder first, so that its teardown (removing it) comes last
    globalSetup: ['test/helpers/run-tmp-global-setup.ts', 'test/helpers/seed-templates-global-setup.ts'],
    projects: [
      { extends: true, test: { name: 'embedded', include: ['test/**/*.test.ts'], exclude: ['test/cluster/**'] } },
      {
        extends: true,
        test: {
          // CDS_PG_TESTS (a comma list) runs other files in this mode while they are being ported
          name: 'postgres',
          include: process.env['CDS_PG_TESTS']?.split(',') ?? [...CLUSTER_MODE_TESTS, 'test/cluster/**/*.test.ts'],
          env: { CDS_TEST_STATE: 'postgres' },
          globalSetup: ['test/helpers/pg-global-setup.ts'],
        },
      },
    ],
  },
});
