import type { StoreCheck } from '../../data/store-check.js';
import type { CliCommand } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { jsonOption, printer, renderResult } from '../output.js';

const print = printer<StoreCheck>({
  text: (c) => [
    `store: ${c.path}`,
    `state: ${c.state} — ${c.detail}`,
    `size: ${c.size_bytes} bytes; WAL: ${c.wal_bytes} bytes${c.wal_bytes > 0 ? ' (transactions since the last checkpoint)' : ''}`,
    `last checkpoint: ${c.last_checkpoint_at ?? 'never'}`,
    `migrations applied: ${c.migrations_applied.length}${c.migrations_applied.length ? ` (latest ${c.migrations_applied.at(-1)?.version} ${c.migrations_applied.at(-1)?.name}, ${c.migrations_applied.at(-1)?.applied_at})` : ''}`,
    `migrations pending: ${c.migrations_pending.length ? c.migrations_pending.join(', ') : 'none'}`,
  ],
});

/** `cds store check`: the store's files and schema, read without changing anything; works whether or not the service runs. */
export const storeCheckCommand: CliCommand = {
  name: 'store check',
  maxPositionals: 0,
  usage: 'cds store check [--json]',
  summary:
    "report the store's state without changing it: size, WAL size, last checkpoint, migrations applied and pending, whether it opens",
  options: { ...jsonOption('the report') },
  run: async (config, args) => {
    const { checkStore } = await import('../../data/store-check.js');
    const report = await checkStore(config.dbPath);
    process.stdout.write(`${renderResult(print, report, args)}\n`);
    if (report.state !== 'unreadable') return EXIT.ok;
    process.stderr.write(`cds store check: ${report.detail}\n`);
    return EXIT.failed;
  },
};

/** `cds store …`. */
export const storeCommands: readonly CliCommand[] = [storeCheckCommand];
