import type { Config } from '../config/config.js';
import type { Logger } from '../config/logger.js';
import type { StateDb } from '../data/state/state-db.js';
import type { Store } from '../data/store.js';

/*
 * What a background worker is and what it is given, apart from the list of
 * workers (server/workers.ts): the workers' own modules import these types, and
 * server/workers.ts imports the workers, so dependencies point one way.
 */

/** A background loop the service runs beside the HTTP server (scheduler, webhook and export workers). */
export interface BackgroundWorker {
  name: string;
  start(): void;
  /** Stops taking new work and waits for work in flight. */
  stop(): Promise<void>;
}

export interface WorkerDeps {
  /** The analytical store; null in a cluster process that has none (a webhooks-only worker). */
  store: Store | null;
  /** The service state (the store itself in the embedded default). */
  state: StateDb;
  config: Readonly<Config>;
  logger: Logger;
}
