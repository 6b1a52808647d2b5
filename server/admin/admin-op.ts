import { existsSync } from 'node:fs';
import type { z } from 'zod';
import type { Config } from '../../config/config.js';
import type { StateDb } from '../../data/state/state-db.js';
import type { Store } from '../../data/store.js';

/** What an admin operation runs against: the one open store and the config. */
export interface AdminContext {
  /**
   * The analytical store (the active writer's, in cluster mode); null when the
   * CLI runs a command itself on a cluster node that has no store: then only
   * commands on the shared state work (`writerStore` says so for the others).
   */
  store: Store | null;
  /** The service state: the store itself, or PostgreSQL in cluster mode. */
  state: StateDb;
  config: Readonly<Config>;
  /** Reports progress of long work; shown by the CLI on a TTY. */
  progress: (update: ProgressUpdate) => void;
}

export interface ProgressUpdate {
  step: string;
  done: number;
  total: number | null;
  unit?: string;
}

/**
 * One admin operation (`keys.create`, `seed`, …). The same definition runs in the
 * CLI's own process when no server is up, and inside the server when the CLI
 * reaches it over the admin channel, so both paths behave the same.
 */
export interface AdminOp<S extends z.ZodType = z.ZodType, R = unknown> {
  name: string;
  args: S;
  run(ctx: AdminContext, args: z.infer<S>): Promise<R>;
}

export function defineOp<S extends z.ZodType, R>(op: AdminOp<S, R>): AdminOp<S, R> {
  return op;
}

/**
 * The store an operation loads into or reads; a clear refusal where the CLI runs
 * a command itself in cluster mode (no writer answered its admin channel).
 */
export function writerStore(ctx: AdminContext): Store {
  if (ctx.store) return ctx.store;
  if (existsSync(ctx.config.dbPath)) {
    throw new AdminUserError(
      'no active writer answers on this data folder, and in cluster mode only the active writer writes ' +
        'the store: nothing was done. Start a writer here (CDS_ROLES=writer cds start) or wait for a standby to take over, then run it again',
    );
  }
  throw new AdminUserError(
    'this command needs the analytical store, which the active writer owns: run it with CDS_DATA_DIR ' +
      "set to the writer's data folder while the writer runs (the CLI then sends it over the writer's admin channel)",
  );
}

/** A failure the user caused (bad argument, unknown id); printed as is, exit code 1. */
export class AdminUserError extends Error {
  override name = 'AdminUserError';
}

/**
 * Arguments the operation's schema refused: a usage mistake, which the CLI
 * prints with the command's usage line and exit code 2.
 */
export class AdminArgsError extends AdminUserError {
  override name = 'AdminArgsError';
}
