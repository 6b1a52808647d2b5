// A delivery worker in its own process, for the crash test to SIGKILL mid-delivery.
// Usage: run-ts webhook-crash.child.ts <data dir> <lease ms>
import { testConfig } from '../../config/config.js';
import { DeliveryWorker, webhookWorkerOptions } from '../../connectors/webhooks/index.js';
import { Store } from '../../data/store.js';
import { WEBHOOK_TEST_ENV } from './webhook-fixtures.js';

const [dir, leaseMs] = process.argv.slice(2);
const config = testConfig(dir!, WEBHOOK_TEST_ENV);
const store = await Store.open(config.dbPath, { threads: 1 });
new DeliveryWorker(store, webhookWorkerOptions(config, { pollMs: 20, leaseMs: Number(leaseMs), perEndpoint: 10 })).start();
process.stdout.write('ready\n');
