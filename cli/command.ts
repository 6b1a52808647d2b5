import type { Config } from '../config/config.js';
import { closest } from './suggest.js';

/** Parsed `--flag value` options and positionals of one command line. */
export interface ParsedArgs {
  positionals: string[];
  values: Record<string, string | boolean | string[] | undefined>;
}

/** One `cds` sub-command. Admin commands name an admin op and build its arguments. */
export interface CliCommand {
  /** e.g. `keys create`; matched against the leading words of the command line. */
  name: string;
  usage: string;
  summary: string;
  /** The most positional arguments the command takes; one more is a usage mistake. Unset: any number. */
  maxPositionals?: number;
  /** `node:util` parseArgs option spec, with a line of help per option for `--help`. */
  options?: Record<string, CliOption>;
  /** For commands run as an admin operation (through the server when it runs). */
  op?: string;
  /** `config` is the CLI's own, which a running server does not share (its own configuration applies). */
  toArgs?: (args: ParsedArgs, config?: Readonly<Config>) => unknown;
  /** Text output without `--json` (build it with `printer` from cli/output.ts); `--json` is printed by the CLI for every admin command. */
  print?: (result: unknown, args: ParsedArgs) => string;
  /** The exit code a result means (0 when absent), and a stderr line saying why when it is not 0. */
  verdict?: (result: unknown) => { code: number; reason: string | null };
  /** For commands that run their own way (`start`). Answers the exit code. */
  run?: (config: Readonly<Config>, args: ParsedArgs) => Promise<number>;
}

/** One option of a command: its parseArgs spec and what `--help` says about it. */
export interface CliOption {
  type: 'string' | 'boolean';
  multiple?: boolean;
  short?: string;
  help?: string;
}

/** A command-line mistake; printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export function str(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** A string option restricted to a few values; a usage mistake names them. */
export function oneOf<T extends string>(name: string, value: string | undefined, allowed: readonly T[]): T {
  if (value === undefined || !(allowed as readonly string[]).includes(value)) {
    const near = value === undefined ? null : closest(value, allowed);
    throw new UsageError(
      `--${name} must be one of ${allowed.join(', ')}${value === undefined ? '' : `, not ${value}`}` +
        `${near ? `; did you mean --${name} ${near}?` : ''}`,
    );
  }
  return value as T;
}

/** Like `oneOf`, for an option that may be left out. */
export function optionalOneOf<T extends string>(args: ParsedArgs, name: string, allowed: readonly T[]): T | undefined {
  const v = str(args, name);
  return v === undefined ? undefined : oneOf(name, v, allowed);
}

/** A comma-list option's value: `a, b,` → `['a', 'b']` (items trimmed, empty ones dropped); undefined when not given. */
export function commaList(value: string | undefined): string[] | undefined {
  return value
    ?.split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

/** A comma-list option (read with `commaList`); `what` completes its help line, `comma list of …`. */
export function commaListOption(what: string): CliOption {
  return { type: 'string', help: `comma list of ${what}` };
}

export function int(args: ParsedArgs, name: string): number | undefined {
  const v = str(args, name);
  if (v === undefined) return undefined;
  const n = Number(v.replaceAll('_', ''));
  if (!Number.isInteger(n)) throw new UsageError(`--${name} must be a whole number, not ${v}`);
  return n;
}

/** Kept for commands that import it from here; new code imports `table` and `printer` from cli/output.ts. */
export { table } from './output.js';
