import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { secureDataFolder, usePrivateUmask } from '../data/private-files.js';
import { AdminArgsError, AdminUserError } from '../server/admin/admin-op.js';
import { callAdmin } from './admin-client.js';
import { UsageError, type CliCommand, type ParsedArgs } from './command.js';
import { COMMANDS } from './commands/index.js';
import { EXIT } from './exit-codes.js';
import { asFlags, closestCommand, commandHelp, commandOptions, generalHelp, groupCommands, groupHelp } from './help.js';
import { renderResult } from './output.js';
import { progressPrinter, type ProgressPrinter } from './progress.js';
import { closest } from './suggest.js';

/** Runs one `cds` command line; answers the process exit code. */
export async function main(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  if (argv.length === 0) {
    // no command is a usage mistake (a script that lost its arguments must not pass)
    process.stderr.write(generalHelp(COMMANDS));
    return EXIT.usage;
  }
  if (argv[0] === '--version' || argv[0] === '-V' || argv[0] === 'version') {
    process.stdout.write(`cds ${packageVersion()}\n`);
    return EXIT.ok;
  }
  if (argv[0] === 'help' || isHelpFlag(argv[0])) return showHelp(argv.slice(1).filter((a) => !isHelpFlag(a)));
  const command = findCommand(argv);
  if (!command) return noSuchCommand(argv);
  const rest = argv.slice(command.name.split(' ').length);
  // `cds runs shw`: a word after a command that takes none and heads a group is a mistyped subcommand
  if (command.maxPositionals === 0 && isWord(rest[0]) && groupCommands(COMMANDS, command.name).length > 0)
    return noSuchCommand(argv);
  if (wantsHelp(rest)) {
    process.stdout.write(commandHelp(command));
    return EXIT.ok;
  }
  try {
    const args = parse(command, rest);
    const config = loadConfig(env);
    usePrivateUmask(); // `start` and admin commands only: files they (and DuckDB) create are this account's alone
    if (command.run) return await command.run(config, args);
    return await runAdminCommand(command, config, args);
  } catch (error) {
    return await reportFailure(command, error);
  }
}

/** The package's version: package.json sits one folder above both cli/cds.ts and the bundle dist/cds.mjs. */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}

const isHelpFlag = (arg: string | undefined): boolean => arg === '--help' || arg === '-h';
const isWord = (arg: string | undefined): boolean => arg !== undefined && !arg.startsWith('-');

/** `--help` or `-h` anywhere before a `--` that ends the options. */
function wantsHelp(rest: readonly string[]): boolean {
  const end = rest.indexOf('--');
  return (end < 0 ? rest : rest.slice(0, end)).some(isHelpFlag);
}

function findCommand(argv: readonly string[]): CliCommand | undefined {
  return [...COMMANDS]
    .sort((a, b) => b.name.split(' ').length - a.name.split(' ').length)
    .find((c) => c.name.split(' ').every((word, i) => argv[i] === word));
}

/** `cds --help`, `cds help <command>`. */
function showHelp(topic: readonly string[]): number {
  if (topic.length === 0) {
    process.stdout.write(generalHelp(COMMANDS));
    return EXIT.ok;
  }
  const command = findCommand(topic);
  if (!command) return noSuchCommand([...topic, '--help']);
  process.stdout.write(commandHelp(command));
  return EXIT.ok;
}

/**
 * A command line that names no command: a group without its command (`cds keys`)
 * lists the group's commands; anything else is an unknown command, with the
 * closest one when it looks like a typo. A usage mistake: exit code 2.
 */
function noSuchCommand(argv: readonly string[]): number {
  const group = groupCommands(COMMANDS, argv[0] ?? '');
  if (group.length > 0 && (argv.length === 1 || isHelpFlag(argv[1]))) {
    if (argv.length > 1) {
      process.stdout.write(groupHelp(argv[0] ?? '', group));
      return EXIT.ok;
    }
    process.stderr.write(`cds ${argv[0] ?? ''}: name the command\n${groupHelp(argv[0] ?? '', group)}`);
    return EXIT.usage;
  }
  const { typed, suggestion } = closestCommand(COMMANDS, argv);
  process.stderr.write(
    `cds: unknown command "${typed}"${suggestion ? `; did you mean "cds ${suggestion}"?` : ''}\n` +
      'Run "cds --help" for the list of commands.\n',
  );
  return EXIT.usage;
}

function parse(command: CliCommand, rest: string[]): ParsedArgs {
  const options = Object.fromEntries(
    Object.entries(commandOptions(command)).map(([name, { help: _help, ...spec }]) => [name, spec]),
  );
  try {
    const { values, positionals } = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
    const extra = command.maxPositionals === undefined ? undefined : positionals[command.maxPositionals];
    if (extra !== undefined) throw new UsageError(`unexpected argument ${extra}`);
    return { values: values as ParsedArgs['values'], positionals };
  } catch (error) {
    throw error instanceof UsageError ? error : new UsageError(parseArgsMessage(command, error as Error));
  }
}

/** node:util's parser errors, said as a person would: the unknown option and the closest one the command has. */
function parseArgsMessage(command: CliCommand, error: Error): string {
  const code = (error as { code?: string }).code;
  const option = /'(-{1,2}[^'\s]+)'/.exec(error.message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && option) {
    const near = closest(option.replace(/^-+/, '').split('=')[0] ?? '', Object.keys(commandOptions(command)));
    return `unknown option ${option}${near ? `; did you mean --${near}?` : ''} (cds ${command.name} --help lists its options)`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && option)
    return `${option} needs a value (cds ${command.name} --help)`;
  return error.message;
}

/**
 * Sends the command to the running server over the admin channel; when no
 * server runs, opens the store in this process and runs the same operation.
 */
async function runAdminCommand(command: CliCommand, config: Readonly<Config>, args: ParsedArgs): Promise<number> {
  const opName = command.op ?? command.name;
  const opArgs = command.toArgs ? command.toArgs(args, config) : {};
  const progress = progressPrinter();
  const reply = await callAdmin(config.adminSocketPath, opName, opArgs, progress.update, () =>
    storeHeader(config, 'in the running server'),
  );
  let result: unknown;
  if (reply.reached) {
    progress.end();
    if (reply.error?.usage) throw new UsageError(asFlags(command, reply.error.message));
    if (reply.error) {
      process.stderr.write(`cds ${command.name}: ${reply.error.message}\n`);
      return EXIT.failed;
    }
    result = reply.result;
  } else {
    result = await runLocally(opName, opArgs, config, progress);
  }
  process.stdout.write(`${renderResult(command.print, result, args)}\n`);
  const verdict = command.verdict?.(result) ?? { code: 0, reason: null };
  if (verdict.reason) process.stderr.write(`cds ${command.name}: ${verdict.reason}\n`);
  return verdict.code;
}

/**
 * Runs an admin operation in this process. In cluster mode the CLI opens no store,
 * not even in the writer's data folder: only the active writer writes it (a load
 * made here would reach no replica, and could race a standby taking over).
 * Commands on the shared state (keys, runs) go straight to PostgreSQL; the others
 * refuse, saying whether a writer is missing or the folder is the wrong one.
 */
async function runLocally(
  opName: string,
  opArgs: unknown,
  config: Readonly<Config>,
  progress: ProgressPrinter,
): Promise<unknown> {
  const options = {
    memoryLimit: config.duckdb.memoryLimit,
    threads: config.duckdb.threads,
    onRecovered: (message: string) => process.stderr.write(`store: ${message}\n`),
  };
  // loaded here, not at the top: a command the running server answers, or a usage mistake, needs none of
  // the store, DuckDB or the operations (bin/bundle.mjs leaves them in chunks of their own)
  const [{ Store }, { openState }, { runOp }, { seedStatus }] = await Promise.all([
    import('../data/store.js'),
    import('../data/state/open-state.js'),
    import('../server/admin/admin-channel.js'),
    import('../data/seed/seed-state.js'),
  ]);
  const local = !config.cluster;
  if (local) secureDataFolder(config);
  const store = local ? await Store.open(config.dbPath, options) : null;
  if (store) storeHeader(config, 'opened by this command');
  const opened = await openState(config, store).catch(async (error: unknown) => {
    await store?.close();
    throw error;
  });
  try {
    return await runOp(opName, JSON.stringify(opArgs), {
      store,
      state: opened.state,
      config,
      progress: progress.update,
    });
  } catch (error) {
    // After a write failed on a full disk DuckDB refuses writes on this instance, so a half-done seed
    // that could not be discarded here is discarded by opening the store afresh (Store.open); best effort.
    if (
      store &&
      (await seedStatus(store).then(
        (status) => status === 'interrupted',
        () => true,
      ))
    ) {
      await store.close().catch(() => undefined);
      await Store.open(config.dbPath, options).then(
        (s) => s.close(),
        () => undefined,
      );
    }
    throw error;
  } finally {
    progress.end();
    await opened.close();
    await store?.close();
  }
}

/**
 * The store a command used, one line on stderr: the default data folder is the
 * project's `var/` wherever the command runs, and this line shows which one it was.
 */
function storeHeader(config: Readonly<Config>, how: string): void {
  process.stderr.write(`store: ${config.dbPath} (${how})\n`);
}

async function reportFailure(command: CliCommand, error: unknown): Promise<number> {
  const prefix = `cds ${command.name}:`;
  if (error instanceof UsageError || error instanceof AdminArgsError) {
    process.stderr.write(`${prefix} ${asFlags(command, error.message)}\nusage: ${command.usage}\n`);
    return EXIT.usage;
  }
  // the store's own errors come from modules loaded lazily: loaded already when one of them threw
  const [{ StoreCorruptError, StoreLockedError }, { StoreWalReplayError }] = await Promise.all([
    import('../data/store.js'),
    import('../data/store-recovery.js'),
  ]);
  if (
    error instanceof ConfigError ||
    error instanceof StoreLockedError ||
    error instanceof StoreCorruptError ||
    error instanceof StoreWalReplayError
  ) {
    process.stderr.write(`${prefix} ${error.message}\n`);
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof AdminUserError) {
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

// `node bin/run-ts.mjs cli/cds.ts …`; bin/cds.mjs (`npx cds`, `npm start`) calls main() itself
const isEntry = process.argv[1] !== undefined && /cli[\\/]cds\.(ts|js)$/.test(process.argv[1]);
if (isEntry) {
  process.exitCode = await main(process.argv.slice(2), process.env);
}
