/**
 * A background loop the service runs beside the HTTP server: the scheduler, the
 * webhook, export and sync workers, the purges. Every layer that has one returns
 * this shape; server/workers.ts starts and stops them.
 */
export interface BackgroundWorker {
  name: string;
  start(): void;
  /** Stops taking new work and waits for work in flight. */
  stop(): Promise<void>;
}

/** What a background worker logs through (a pino logger is one). */
export interface WorkerLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}
