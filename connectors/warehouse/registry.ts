import type { Store } from '../../data/store.js';
import { filesDestination } from '../files/index.js';
import type { FilesDestinationConfig } from '../files/config.js';
import { postgresDestination } from '../postgres/index.js';
import type { PostgresDestinationConfig } from '../postgres/config.js';
import type { Destination, PushProgress, PushResult, SyncBatch } from './destination.js';
import type { WarehouseError } from './errors.js';

/** A configured destination of any type. */
export type DestinationConfig = PostgresDestinationConfig | FilesDestinationConfig;

/** Every destination type, by its `type` name. */
export const DESTINATION_TYPES = ['postgres', 'files'] as const;

/** A destination with its config applied: what the runner works with. */
export interface BoundDestination {
  type: string;
  testConnection(): Promise<void>;
  push(store: Store, batch: SyncBatch, progress: PushProgress): Promise<PushResult>;
  classify(error: unknown): WarehouseError;
}

export function bindDestination(config: DestinationConfig): BoundDestination {
  switch (config.type) {
    case 'postgres':
      return bind(postgresDestination, config);
    case 'files':
      return bind(filesDestination, config);
  }
}

function bind<C extends { type: string }>(destination: Destination<C>, config: C): BoundDestination {
  return {
    type: destination.type,
    testConnection: () => destination.testConnection(config),
    push: (store, batch, progress) => destination.push(config, store, batch, progress),
    classify: (error) => destination.classify(error),
  };
}
