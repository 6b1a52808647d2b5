import {
  errorCode,
  errorMessage,
  TerminalError,
  TransientError,
  TRANSIENT_NET_CODES,
  WarehouseError,
} from '../warehouse/errors.js';

/** SQLSTATE classes and codes worth a retry: the server or the network will recover. */
const TRANSIENT_CLASSES = new Set(['08', '40', '53', '58']);
const TRANSIENT_CODES = new Set(['57P01', '57P02', '57P03', '55P03', '57014', '55006']);

/** Advice for terminal failures the user can fix. */
const TERMINAL_HINTS: ReadonlyArray<[RegExp, string]> = [
  [/^28/, 'authentication failed: check the user and password in the destination url'],
  [/^3D000$/, 'the database in the destination url does not exist'],
  [/^42501$/, 'the user lacks a privilege it needs (CREATE on the database or schema, or write on the tables)'],
  [/^(42|0A)/, 'the destination schema does not match what is synced'],
  [/^(22|23)/, 'a row was refused by the destination'],
];

/**
 * Classifies a failure of the PostgreSQL destination: lost connections,
 * shutdowns, deadlocks, lock timeouts and full resources are transient;
 * authentication, missing database, privileges, schema and data errors are
 * terminal, with a hint of what to fix.
 */
export function classifyPostgresError(error: unknown): WarehouseError {
  if (error instanceof WarehouseError) return error;
  const code = errorCode(error);
  const message = errorMessage(error);
  if (code && /^[0-9A-Z]{5}$/.test(code)) {
    if (TRANSIENT_CLASSES.has(code.slice(0, 2)) || TRANSIENT_CODES.has(code)) {
      return new TransientError(`PostgreSQL ${code}: ${message}`, { cause: error });
    }
    const hint = TERMINAL_HINTS.find(([re]) => re.test(code))?.[1];
    return new TerminalError(`${hint ? `${hint} (` : ''}PostgreSQL ${code}: ${message}${hint ? ')' : ''}`, {
      cause: error,
    });
  }
  if (
    (code && TRANSIENT_NET_CODES.has(code)) ||
    /connection|terminated|timeout|timed out|not queryable|socket/i.test(message)
  ) {
    return new TransientError(`PostgreSQL unreachable: ${code ? `${code} ` : ''}${message}`, { cause: error });
  }
  if (code === 'ENOTFOUND')
    return new TerminalError(`the destination host does not resolve: ${message}`, { cause: error });
  return new TerminalError(message, { cause: error });
}
