/**
 * Failures of a warehouse destination, classified (house style #9): a transient
 * one (timeout, dropped connection, lock contention, server restarting) is worth
 * retrying with backoff; a terminal one (bad credentials, unknown database,
 * schema mismatch, bad data) stops the run and says why. Only the runner decides
 * what to do with them.
 */
export class WarehouseError extends Error {
  override name = 'WarehouseError';
  constructor(
    message: string,
    readonly transient: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Worth another attempt after a pause. */
export class TransientError extends WarehouseError {
  override name = 'TransientError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, true, options);
  }
}

/** Retrying will not help; the message says what to fix. */
export class TerminalError extends WarehouseError {
  override name = 'TerminalError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, false, options);
  }
}

/** Node socket error codes that mean the network or the peer went away for now. */
export const TRANSIENT_NET_CODES: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTCONN',
  'ECONNABORTED',
]);

export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
