import { pino, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

/** One structured JSON logger per process, at the configured level. */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: NodeJS.WritableStream): Logger {
  return pino({ level: config.logLevel, base: { service: 'cds' } }, destination ?? process.stdout);
}
