import type { z } from 'zod';
import type { Store } from '../../data/store.js';
import type { WarehouseError } from './errors.js';
import type { BatchQuery, SyncColumn, SyncTableSpec } from './tables.js';

/** One table's slice of a sync run, handed to a destination's `push`. */
export interface SyncBatch {
  runId: string;
  /** The destination's configured name. */
  destination: string;
  table: SyncTableSpec;
  columns: readonly SyncColumn[];
  /** Rows to send, read from the store. */
  query: BatchQuery;
  /** `from` is the last run's watermark (`null` on the first run); `to` this run's. */
  watermark: { from: string | null; to: string | null };
  /** The run's day, `YYYY-MM-DD`. */
  runDate: string;
  /** A scratch folder of this run, removed after it. */
  workDir: string;
}

export interface PushResult {
  /** Rows read from the store for this batch. */
  rowsRead: number;
  /** Rows written to the destination. */
  rowsLoaded: number;
  /** Rows the destination now holds differently (inserted or updated). */
  rowsChanged: number;
}

/** Rows sent so far; a returned promise holds the push until it settles. */
export type PushProgress = (done: number, total: number | null) => void | Promise<void>;

/**
 * A warehouse destination. Every destination has the same shape: a config
 * schema, a connection test, a push of one table batch that commits as a whole
 * or not at all, and a classification of its failures.
 */
export interface Destination<C extends { type: string }> {
  type: C['type'];
  configSchema: z.ZodType<C>;
  /** Answers when the destination is reachable and writable; throws a classified error otherwise. */
  testConnection(config: C): Promise<void>;
  /** Writes one batch; re-running the same batch leaves the destination unchanged. */
  push(config: C, store: Store, batch: SyncBatch, progress: PushProgress): Promise<PushResult>;
  classify(error: unknown): WarehouseError;
}
