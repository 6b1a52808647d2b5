// Keeps the latest output of each drill in docs/drills.md, between per-drill
// markers, so re-running one drill with --record replaces only its own block.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Checks } from '../test/helpers/drill-kit.js';

const DOC = resolve(import.meta.dirname, '..', 'docs', 'drills.md');

/** Replaces (or appends) the block of drill `name` with its command and output lines. */
export function recordDrill(name: string, command: string, lines: readonly string[], path = DOC): void {
  mkdirSync(join(path, '..'), { recursive: true });
  const begin = `<!-- drill:${name}:begin -->`;
  const end = `<!-- drill:${name}:end -->`;
  const block = [
    begin,
    `### ${name} — ${new Date().toISOString()}`,
    '',
    `\`${command}\``,
    '',
    '```',
    ...lines,
    '```',
    end,
  ].join('\n');
  const doc = existsSync(path)
    ? readFileSync(path, 'utf8')
    : '# Reliability drills\n\nOutputs of `npm run drill:load`, `npm run drill:faults` and the long fuzz pass, as last recorded with `--record`.\n';
  const a = doc.indexOf(begin);
  const b = doc.indexOf(end);
  writeFileSync(
    path,
    a >= 0 && b > a ? `${doc.slice(0, a)}${block}${doc.slice(b + end.length)}` : `${doc.trimEnd()}\n\n${block}\n`,
  );
}

/**
 * Ends a drill: with `--record` its lines go into docs/drills.md under `name`
 * with the command that reproduces it; the verdict line (when the drill has a
 * `title`) and the exit code say whether every check passed.
 */
export function finishDrill(
  checks: Checks,
  drill: { name: string; command: string; title?: string; record: boolean },
): never {
  if (drill.record) recordDrill(drill.name, drill.command, checks.lines);
  const passed = checks.failed === 0;
  if (drill.title) process.stdout.write(`\n${drill.title} ${passed ? 'PASSED' : `FAILED (${checks.failed})`}\n`);
  process.exit(passed ? 0 : 1);
}

/** The options every drill takes: `--keep` leaves its folder for a look after the run, `--record` writes docs/drills.md. */
const DRILL_OPTIONS = { keep: { type: 'boolean' }, record: { type: 'boolean' } } as const;

/** The size of a load drill: how many requests (`--requests`), from how many clients (`--concurrency`), over how many creators. */
export const LOAD_OPTIONS = {
  requests: { type: 'string' },
  concurrency: { type: 'string' },
  creators: { type: 'string' },
} as const;

/** A drill's command line: its own options and the ones every drill takes. */
export function drillArgs<const O extends NonNullable<ParseArgsConfig['options']>>(options: O) {
  return parseArgs({ options: { ...options, ...DRILL_OPTIONS } }).values;
}
