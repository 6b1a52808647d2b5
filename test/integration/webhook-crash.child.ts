// A delivery worker in its own process, for the crash test to SIGKILL mid-delivery.
// Usage: run-ts webhook-crash.child.ts <data dir> <lease ms> [<PostgreSQL url>]
// With a URL (cluster mode) the worker opens only the PostgreSQL state, as a cluster's webhook process does.
import { testConfig } from '../../config/config.js';
import { DeliveryWorker, webhookWorkerOptions } from '../../connectors/webhooks/index.js';
import { PgState } from '../../data/state/pg-state.js';
import type { StateDb } from '../../data/state/state-db.js';
import { Store } from '../../data/store.js';
import { WEBHOOK_TEST_ENV } from './webhook-fixtures.js';

const [dir, leaseMs, databaseUrl] = process.argv.slice(2);
const config = testConfig(dir!, WEBHOOK_TEST_ENV);
const state: StateDb = databaseUrl
  ? await PgState.open(databaseUrl, { applicationName: 'cds webhook-crash child' })
  : await Store.open(config.dbPath, { threads: 1 });
new DeliveryWorker(
  state,
  webhookWorkerOptions(config, { pollMs: 20, leaseMs: Number(leaseMs), perEndpoint: 10 }),
).start();
process.stdout.write('ready\n');
