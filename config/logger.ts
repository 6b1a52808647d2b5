import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';
import { prettyLine } from './pretty-log.js';

export type { Logger };

/** How `createLogger` writes: `beforeWrite` runs before each line (the CLI finishes its progress line there). */
export interface LoggerOptions {
  beforeWrite?: () => void;
}

type LoggerConfig = Pick<Config, 'logLevel'> & Partial<Pick<Config, 'logFormat'>>;

/** Loggers writing readable lines for a person at a terminal; their request lines are debug (see `requestLogLevel`). */
const forPeople = new WeakSet<Logger>();

/**
 * One logger per process, at the configured level: JSON lines for machines
 * (not a terminal, `NODE_ENV=production`, `CDS_LOG_FORMAT=json`), readable lines
 * on a terminal or with `CDS_LOG_FORMAT=pretty`. Writes are synchronous, so a
 * line is on the terminal before whatever the process prints next.
 */
export function createLogger(
  config: LoggerConfig,
  destination: NodeJS.WritableStream = process.stdout,
  options: LoggerOptions = {},
): Logger {
  const pretty = (config.logFormat ?? (isTerminal(destination) ? 'pretty' : 'json')) === 'pretty';
  const logger = pino(
    { level: config.logLevel, base: { service: 'cds' } },
    sink(destination, pretty, options.beforeWrite),
  );
  if (pretty) forPeople.add(logger);
  return logger;
}

/**
 * The level of the one-line-per-request access log: `info` in JSON logs, which
 * machines filter; `debug` in readable logs, where a line per request would bury
 * everything else at the default `info` (`CDS_LOG_LEVEL=debug` shows them).
 */
export function requestLogLevel(logger: Logger): 'info' | 'debug' {
  return forPeople.has(logger) ? 'debug' : 'info';
}

function isTerminal(stream: NodeJS.WritableStream): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

function sink(
  destination: NodeJS.WritableStream,
  pretty: boolean,
  beforeWrite: (() => void) | undefined,
): DestinationStream {
  if (!pretty && !beforeWrite) return destination;
  return {
    write(line: string) {
      beforeWrite?.();
      destination.write(pretty ? prettyLine(line) : line);
    },
  };
}
