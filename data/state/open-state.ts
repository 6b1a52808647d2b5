import type { Config } from '../../config/config.js';
import type { Store } from '../store.js';
import { PG_TIMEOUTS, PgState } from './pg-state.js';
import type { StateDb } from './state-db.js';

/** The service state and how to let it go. */
export interface OpenedState {
  state: StateDb;
  /** Closes what `openState` opened (nothing in the embedded default: the state is the store). */
  close(): Promise<void>;
}

/**
 * The one place the state backend is chosen: PostgreSQL when cluster mode is
 * configured (`CDS_DATABASE_URL`), otherwise the embedded DuckDB store itself.
 * A cluster node without a store (not the writer's data folder) passes null.
 */
export async function openState(config: Readonly<Config>, store: Store | null): Promise<OpenedState> {
  if (!config.cluster) {
    if (!store) throw new Error('the embedded default keeps its state in the store: open the store first');
    return { state: store, close: async () => undefined };
  }
  // A process that answers HTTP requests bounds their wait on an open connection tighter than a worker does.
  const queryTimeoutMs = config.roles.includes('server') ? PG_TIMEOUTS.apiQueryMs : PG_TIMEOUTS.queryMs;
  const state = await PgState.open(config.cluster.databaseUrl, {
    applicationName: `cds ${config.cluster.instanceName} ${config.roles.join(',')}`,
    queryTimeoutMs,
  });
  return { state, close: () => state.close() };
}
