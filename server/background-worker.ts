import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import type { StateDb } from '../data/state/state-db.js';
import type { Store } from '../data/store.js';

/*
 * What a server-started background worker is given, apart from the list of
 * workers (server/workers.ts): the workers' own modules import this type, and
 * server/workers.ts imports the workers, so dependencies point one way. The
 * worker's shape itself is core/background-worker.ts.
 */

export interface WorkerDeps {
  /** The analytical store; null in a cluster process that has none (a webhooks-only worker). */
  store: Store | null;
  /** The service state (the store itself in the embedded default). */
  state: StateDb;
  config: Readonly<Config>;
  logger: Logger;
}
