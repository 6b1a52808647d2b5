import type { CliCommand, CliOption } from './command.js';
import { withJsonOption } from './output.js';
import { editDistance } from './suggest.js';

const words = (c: CliCommand): string[] => c.name.split(' ');

/** `cds --help`: every command with its summary. */
export function generalHelp(commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  return (
    `Creator Data Service CLI\n\nusage: cds <command> [options]\n\n${commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`).join('\n')}\n\n` +
    `Run "cds <command> --help" for a command's options.\n` +
    `Admin commands go to the running server over its local admin channel (a Unix socket in CDS_DATA_DIR),\n` +
    `or open the store themselves when no server runs.\n`
  );
}

/** `cds <command> --help`: what it does, its usage line and each option. */
export function commandHelp(command: CliCommand): string {
  const options = Object.entries(commandOptions(command)).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : ''}--${name}${o.type === 'string' ? ' <value>' : ''}`;
    return [flag, `${o.help ?? ''}${o.multiple ? ' (may be repeated)' : ''}`] as const;
  });
  options.push(['-h, --help', 'show this help']);
  const width = Math.max(...options.map(([flag]) => flag.length));
  return (
    `cds ${command.name}: ${command.summary}\n\nusage: ${command.usage}\n\noptions:\n` +
    `${options.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`.trimEnd()).join('\n')}\n`
  );
}

/** A command's options as parsed and shown: every admin command (one without its own `run`) also takes `--json`. */
export function commandOptions(command: CliCommand): Record<string, CliOption> {
  return command.run ? { ...command.options } : withJsonOption(command.options);
}

/**
 * An admin operation's refusal of its arguments (`entity: Invalid option: …`)
 * in the command's terms: an argument that is an option is named as the flag.
 */
export function asFlags(command: CliCommand, message: string): string {
  return message
    .split('; ')
    .map((part) => {
      const at = part.indexOf(': ');
      const flag = part.slice(0, Math.max(at, 0)).replaceAll('_', '-');
      return at > 0 && command.options?.[flag] ? `--${flag}${part.slice(at)}` : part;
    })
    .join('; ');
}

/** The commands of a group (`keys` → keys create, keys list, keys revoke), for `cds keys` and `cds keys --help`. */
export function groupCommands(commands: readonly CliCommand[], group: string): CliCommand[] {
  return commands.filter((c) => words(c).length > 1 && words(c)[0] === group);
}

export function groupHelp(group: string, members: readonly CliCommand[]): string {
  return (
    `usage: cds ${group} <command>, one of\n\n${members.map((c) => `  ${c.usage}\n      ${c.summary}`).join('\n')}\n\n` +
    `Run "cds ${group} <command> --help" for a command's options.\n`
  );
}

/**
 * The command a mistyped command line most likely meant: each command's name
 * against as many leading words of the line, by edit distance, when close enough
 * to be a typo (at most 2 edits, or a third of the name for long names).
 * Answers what was typed (those words) and the suggestion, if any.
 */
export function closestCommand(
  commands: readonly CliCommand[],
  argv: readonly string[],
): { typed: string; suggestion: string | null } {
  let best: { typed: string; name: string; distance: number } | null = null;
  for (const c of commands) {
    const typed = argv.slice(0, words(c).length).join(' ');
    const distance = editDistance(typed, c.name);
    // distance 0 is the head of a group that took no word after it (`runs` of `runs shw`): not the meaning
    const near = distance > 0 && distance <= Math.max(2, Math.floor(c.name.length / 3));
    if (near && (!best || distance < best.distance)) best = { typed, name: c.name, distance };
  }
  if (best) return { typed: best.typed, suggestion: best.name };
  const inGroup =
    groupCommands(commands, argv[0] ?? '').length > 0 && argv[1] !== undefined && !argv[1].startsWith('-');
  return { typed: argv.slice(0, inGroup ? 2 : 1).join(' '), suggestion: null };
}
