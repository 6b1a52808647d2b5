import { afterEach, beforeEach } from 'vitest';
import type { DeliveryWorker, WebhookWorkerOptions } from '../../connectors/webhooks/index.js';
import type { StateDb } from '../../data/state/state-db.js';
import type { Env } from '../../config/config.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createTestStore, type TestStore } from '../helpers/store.js';
import { startWorker, WEBHOOK_TEST_ENV } from './webhook-fixtures.js';

/** What a delivery test works with; set up before each test and taken down after it. */
export interface DeliveryHarness {
  /** The test's service state (a fresh store, or a PostgreSQL database in the cluster-mode project). */
  readonly state: StateDb;
  /** A local receiver the subscriptions point at. */
  readonly receiver: Receiver;
  /** Starts a delivery worker with test-friendly polling; it is stopped after the test if still running. */
  startWorker(overrides?: Partial<WebhookWorkerOptions>): DeliveryWorker;
  /** Stops the running worker, as a crash or a deploy would between two workers. */
  stopWorker(): Promise<void>;
}

/**
 * Registers the hooks of a delivery test file: a fresh test store (with `env`)
 * and receiver before each test, and after it the worker stopped, the receiver
 * closed and the store removed, so no test sees another's deliveries.
 */
export function useDeliveryHarness(env: Env = WEBHOOK_TEST_ENV): DeliveryHarness {
  let t: TestStore | null = null;
  let receiver: Receiver | null = null;
  let worker: DeliveryWorker | null = null;
  const stopWorker = async (): Promise<void> => {
    await worker?.stop();
    worker = null;
  };
  beforeEach(async () => {
    t = await createTestStore({ env });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await stopWorker();
    await receiver?.close();
    await t?.cleanup();
  });
  const started = <T>(value: T | null): T => {
    if (value === null) throw new Error('the delivery harness is used before its beforeEach hook ran');
    return value;
  };
  return {
    get state() {
      return started(t).state;
    },
    get receiver() {
      return started(receiver);
    },
    startWorker(overrides = {}) {
      const test = started(t);
      worker = startWorker(test.state, test.config, overrides);
      return worker;
    },
    stopWorker,
  };
}
