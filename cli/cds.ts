import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { seedStatus } from '../data/seed/seed-state.js';
import { Store, StoreCorruptError, StoreLockedError } from '../data/store.js';
import { openState } from '../data/state/open-state.js';
import { runOp } from '../server/admin/admin-channel.js';
import { callAdmin } from './admin-client.js';
import { UsageError, type CliCommand, type ParsedArgs } from './command.js';
import { COMMANDS } from './commands/index.js';
import { progressPrinter } from './progress.js';

/** Runs one `cds` command line; answers the process exit code. */
export async function main(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  const command = findCommand(argv);
  if (!command) {
    process.stdout.write(help());
    return argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' ? 0 : 2;
  }
  try {
    const args = parse(command, argv.slice(command.name.split(' ').length));
    const config = loadConfig(env);
    if (command.run) return await command.run(config, args);
    return await runAdminCommand(command, config, args);
  } catch (error) {
    return reportFailure(command, error);
  }
}

function findCommand(argv: readonly string[]): CliCommand | undefined {
  return [...COMMANDS]
    .sort((a, b) => b.name.split(' ').length - a.name.split(' ').length)
    .find((c) => c.name.split(' ').every((word, i) => argv[i] === word));
}

function parse(command: CliCommand, rest: string[]): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({ args: rest, options: command.options ?? {}, allowPositionals: true, strict: true });
    return { values: values as ParsedArgs['values'], positionals };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * Sends the command to the running server over the admin channel; when no
 * server runs, opens the store in this process and runs the same operation.
 */
async function runAdminCommand(command: CliCommand, config: Readonly<Config>, args: ParsedArgs): Promise<number> {
  const opName = command.op ?? command.name;
  const opArgs = command.toArgs ? command.toArgs(args, config) : {};
  const progress = progressPrinter();
  const reply = await callAdmin(config.adminSocketPath, opName, opArgs, progress.update);
  let result: unknown;
  if (reply.reached) {
    progress.end();
    if (reply.error) {
      process.stderr.write(`cds ${command.name}: ${reply.error.message}\n`);
      return 1;
    }
    result = reply.result;
  } else {
    result = await runLocally(opName, opArgs, config, progress);
  }
  const out = command.print ? command.print(result, args) : JSON.stringify(result, null, 2);
  process.stdout.write(`${out}\n`);
  const verdict = command.verdict?.(result) ?? { code: 0, reason: null };
  if (verdict.reason) process.stderr.write(`cds ${command.name}: ${verdict.reason}\n`);
  return verdict.code;
}

/**
 * Runs an admin operation in this process. A cluster node that does not hold the
 * writer's store file (an API or worker node) opens no store: commands on the
 * shared state (keys, runs) go straight to PostgreSQL, the others say where to run.
 */
async function runLocally(opName: string, opArgs: unknown, config: Readonly<Config>, progress: ReturnType<typeof progressPrinter>): Promise<unknown> {
  const options = { memoryLimit: config.duckdb.memoryLimit, threads: config.duckdb.threads };
  const store = config.cluster && !existsSync(config.dbPath) ? null : await Store.open(config.dbPath, options);
  const opened = await openState(config, store).catch(async (error: unknown) => {
    await store?.close();
    throw error;
  });
  try {
    return await runOp(opName, JSON.stringify(opArgs), { store, state: opened.state, config, progress: progress.update });
  } catch (error) {
    // After a write failed on a full disk DuckDB refuses writes on this instance, so a half-done seed
    // that could not be discarded here is discarded by opening the store afresh (Store.open); best effort.
    if (store && await seedStatus(store).then((status) => status === 'interrupted', () => true)) {
      await store.close().catch(() => undefined);
      await Store.open(config.dbPath, options).then((s) => s.close(), () => undefined);
    }
    throw error;
  } finally {
    progress.end();
    await opened.close();
    await store?.close();
  }
}

function reportFailure(command: CliCommand, error: unknown): number {
  const prefix = `cds ${command.name}:`;
  if (error instanceof UsageError) {
    process.stderr.write(`${prefix} ${error.message}\nusage: ${command.usage}\n`);
    return 2;
  }
  if (error instanceof ConfigError || error instanceof StoreLockedError || error instanceof StoreCorruptError) {
    process.stderr.write(`${prefix} ${error.message}\n`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof Error && error.name === 'AdminUserError') {
    process.stderr.write(`${prefix} ${message}\n`);
    return 1;
  }
  if (/No space left on device|ENOSPC|disk is full|Could not write/i.test(message)) {
    process.stderr.write(`${prefix} the disk is full (${message.split('\n')[0]}); nothing was written\n`);
    return 1;
  }
  process.stderr.write(`${prefix} failed: ${message.split('\n')[0]}\n`);
  return 1;
}

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return `Creator Data Service CLI\n\nusage: cds <command> [options]\n\n${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}\n\n` +
    `Admin commands go to the running server over its local admin channel (a Unix socket in CDS_DATA_DIR),\n` +
    `or open the store themselves when no server runs.\n`;
}

// `node bin/run-ts.mjs cli/cds.ts …`; bin/cds.mjs (`npx cds`, `npm start`) calls main() itself
const isEntry = process.argv[1] !== undefined && /cli[\\/]cds\.(ts|js)$/.test(process.argv[1]);
if (isEntry) {
  process.exitCode = await main(process.argv.slice(2), process.env);
}
