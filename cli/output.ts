/**
 * How a `cds` command prints its result: the one place for `--json` and tables.
 *
 * A command declares its output once — the columns of its table, which records
 * fill it, and any text around it — with `printer({...})` as its `print`; the CLI
 * (cli/cds.ts, `renderResult`) prints `--json` for every admin command the same
 * way (the result as one line of JSON) and calls the declaration otherwise.
 * `--json` is added to every admin command's options (`withJsonOption`), so a
 * command need not declare it; declaring it anyway sets its help line.
 *
 * @example
 *   export const runsCommand: CliCommand = {
 *     name: 'runs', usage: 'cds runs [--json]', summary: '…', op: 'runs.list',
 *     options: { ...jsonOption('the runs') },
 *     print: printer<RunRecord[]>({ columns: ['run_id', 'status', 'started_at'] }),
 *   };
 *
 * This module imports nothing of the CLI (command.ts re-exports `table` from it),
 * so every command file may import it without a cycle.
 */

/** The parsed command line, as much of it as printing reads (`ParsedArgs` fits). */
export interface OutputArgs {
  values: Readonly<Record<string, unknown>>;
}

/** What a command prints without `--json`. Every member is optional; an empty declaration prints indented JSON. */
export interface OutputSpec<T> {
  /** The table's columns, in order: fields of each record. Unset: no table. */
  columns?: readonly string[];
  /** The records the table shows. Default: the result itself, which must then be an array. */
  rows?: (result: T) => ReadonlyArray<object>;
  /** Text printed under the table, or the whole output when there are no columns. */
  text?: (result: T, args: OutputArgs) => string | readonly string[];
}

/** A command's `print`: the declared table and text. */
export type Print = (result: unknown, args: OutputArgs) => string;

/** The `--json` option, with what it prints in its help line (e.g. `the runs`). */
export function jsonOption(what: string): { json: { type: 'boolean'; help: string } } {
  return { json: { type: 'boolean', help: `print ${what} as JSON` } };
}

/** A command's options with `--json` added when it does not declare it (commands that print a result). */
export function withJsonOption<O>(
  options: Readonly<Record<string, O>> | undefined,
): Record<string, O | ReturnType<typeof jsonOption>['json']> {
  return { ...jsonOption('the result'), ...options };
}

/** True when the command line asked for JSON. */
export const wantsJson = (args: OutputArgs): boolean => args.values['json'] === true;

/** Builds a command's `print` from its declaration. */
export function printer<T>(spec: OutputSpec<T>): Print {
  return (result, args) => {
    const value = result as T;
    const parts: string[] = [];
    if (spec.columns) parts.push(table(spec.rows ? spec.rows(value) : (value as ReadonlyArray<object>), spec.columns));
    const text = spec.text?.(value, args);
    if (text !== undefined) parts.push(...(typeof text === 'string' ? [text] : text));
    return parts.length > 0 ? parts.join('\n') : JSON.stringify(result, null, 2);
  };
}

/**
 * What the CLI writes for a command's result: with `--json` the result as one
 * line of JSON (what scripts parse; the same shape the admin op answers), else
 * the command's `print`, else indented JSON.
 */
export function renderResult<A extends OutputArgs>(
  print: ((result: unknown, args: A) => string) | undefined,
  result: unknown,
  args: A,
): string {
  if (wantsJson(args)) return JSON.stringify(result);
  return print ? print(result, args) : JSON.stringify(result, null, 2);
}

/** A table for the terminal: columns padded to their widest cell; `(none)` for no rows. */
export function table(rows: ReadonlyArray<object>, columns: readonly string[]): string {
  if (rows.length === 0) return '(none)';
  const cells = rows.map((r) => columns.map((c) => formatCell((r as Record<string, unknown>)[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (values: readonly string[]): string =>
    values
      .map((v, i) => v.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(columns), ...cells.map(line)].join('\n');
}

/** One record as aligned `name  value` lines (a detail view), `-` for an empty value. */
export function fieldLines(fields: ReadonlyArray<readonly [string, unknown]>): string[] {
  const width = Math.max(0, ...fields.map(([name]) => name.length));
  return fields.map(([name, value]) => `${name.padEnd(width)}  ${formatCell(value)}`.trimEnd());
}

function formatCell(v: unknown): string {
  if (v === null || v === undefined) return '-';
  if (Array.isArray(v)) return v.join(',');
  if (v instanceof Date) return v.toISOString();
  return String(v);
}
