import { hostname } from 'node:os';
import type { CliCommand } from '../command.js';
import { progressPrinter } from '../progress.js';
import { banner } from './start-banner.js';

export const startCommand: CliCommand = {
  name: 'start',
  maxPositionals: 0,
  usage: 'cds start',
  summary: 'run the service: store, demo data when empty, pipelines, workers, server',
  run: async (config) => {
    // the service is loaded by `start` alone: the other commands' processes never load it (bin/bundle.mjs)
    const [{ startService }, { createLogger }] = await Promise.all([
      import('../../server/main.js'),
      import('../../config/logger.js'),
    ]);
    const progress = progressPrinter();
    const started = Date.now();
    // A log line starts on a line of its own, never glued to the seed's progress line.
    const logger = createLogger(config, process.stdout, { beforeWrite: progress.interrupt });
    const service = await startService(config, {
      logger,
      onSeedProgress: (step, done, total) =>
        progress.update({ step: `seeding demo data: ${step}`, done, total, unit: 'steps' }),
    });
    progress.end();
    process.stderr.write(
      banner({
        url: service.url,
        host: config.host,
        hostname: hostname(),
        key: service.demoKey,
        seconds: (Date.now() - started) / 1000,
        roles: config.roles,
      }),
    );
    // The process lives until a signal, whatever its workers hold open: a standby writer or an export
    // worker whose PostgreSQL connections all closed (a PostgreSQL restart) would otherwise leave the
    // event loop with only unref'd timers, and Node would end it at this await (exit status 13).
    const lifeline = setInterval(() => undefined, 2 ** 30);
    await new Promise<void>((resolve) => {
      const stop = (signal: string): void => {
        process.stderr.write(`\n${signal}: finishing in-flight work and closing the store…\n`);
        service.stop().then(resolve, (error: unknown) => {
          process.stderr.write(`shutdown failed: ${(error as Error).message}\n`);
          process.exitCode = 1;
          resolve();
        });
      };
      process.once('SIGINT', () => stop('SIGINT'));
      process.once('SIGTERM', () => stop('SIGTERM'));
    });
    clearInterval(lifeline);
    return 0;
  },
};
