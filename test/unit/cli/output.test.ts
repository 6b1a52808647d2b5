import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../../cli/commands/index.js';
import { commandHelp, commandOptions } from '../../../cli/help.js';
import { fieldLines, printer, renderResult, table } from '../../../cli/output.js';

const rows = [{ name: 'creators', rows: 12, tags: ['a', 'b'], note: null }];
const plain = { positionals: [], values: {} };
const json = { positionals: [], values: { json: true } };

describe('CLI output', () => {
  it('a declared table prints its columns padded to the widest cell, - for empty, arrays comma-joined', () => {
    expect(printer({ columns: ['name', 'rows', 'tags', 'note'] })(rows, plain)).toBe(
      'name      rows  tags  note\ncreators  12    a,b   -',
    );
  });

  it('text follows the table, and a declaration with neither prints indented JSON', () => {
    const print = printer<{ items: object[]; total: number }>({
      columns: ['name'],
      rows: (r) => r.items,
      text: (r) => `${r.total} in all`,
    });
    expect(print({ items: rows, total: 1 }, plain)).toBe('name\ncreators\n1 in all');
    expect(printer({})({ a: 1 }, plain)).toBe('{\n  "a": 1\n}');
  });

  it('--json prints the result as one line of JSON whatever the declaration', () => {
    const print = printer({ columns: ['name'] });
    expect(renderResult(print, rows, json)).toBe(JSON.stringify(rows));
    expect(renderResult(undefined, rows, plain)).toBe(JSON.stringify(rows, null, 2));
  });

  it('an empty table says (none); a detail view aligns its names', () => {
    expect(table([], ['a'])).toBe('(none)');
    expect(
      fieldLines([
        ['id', 'r1'],
        ['status', null],
      ]),
    ).toEqual(['id      r1', 'status  -']);
  });

  it('every command that prints a result takes --json and lists it in its help', () => {
    for (const command of COMMANDS.filter((c) => !c.run)) {
      expect(commandOptions(command)['json']?.type, command.name).toBe('boolean');
      expect(commandHelp(command), command.name).toContain('--json');
    }
  });
});
