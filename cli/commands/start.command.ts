import { startService } from '../../server/main.js';
import type { CliCommand } from '../command.js';
import { progressPrinter } from '../progress.js';

export const startCommand: CliCommand = {
  name: 'start',
  usage: 'cds start',
  summary: 'run the service: store, demo data when empty, pipelines, workers, server',
  run: async (config) => {
    const progress = progressPrinter();
    const started = Date.now();
    const service = await startService(config, {
      onSeedProgress: (step, done, total) => progress.update({ step: `seeding demo data: ${step}`, done, total, unit: 'steps' }),
    });
    progress.end();
    printBanner(service.url, service.demoKey, (Date.now() - started) / 1000, config.roles);
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
    return 0;
  },
};

function printBanner(url: string | null, key: string | null, seconds: number, roles: readonly string[]): void {
  if (url === null) {
    process.stderr.write(`\nCreator Data Service is running ${roles.join(', ')} (started in ${seconds.toFixed(1)} s); ` +
      `no HTTP server, as CDS_ROLES leaves out server.\nPress Ctrl+C to stop.\n\n`);
    return;
  }
  const lines = [``, `Creator Data Service is ready at ${url} (started in ${seconds.toFixed(1)} s)`, `  API reference: ${url}/docs`];
  if (key) {
    lines.push(`  Demo API key (entry plan): ${key}`, `  Try:`,
      `    curl -H "Authorization: Bearer ${key}" "${url}/v1/creators/search?niche=fitness&country=US&limit=5"`);
  }
  lines.push(`Press Ctrl+C to stop.`, ``);
  process.stderr.write(`${lines.join('\n')}\n`);
}
