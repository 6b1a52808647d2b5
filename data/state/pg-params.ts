import type { SqlParams, SqlValue } from '../store.js';

/**
 * Rewrites the placeholders the state queries use (`?` in order, `$name` by
 * name) into PostgreSQL's `$1…$n`, skipping string literals, quoted identifiers
 * and comments. A name used twice binds one value.
 */
export function toPgQuery(sql: string, params: SqlParams | undefined): { text: string; values: unknown[] } {
  const named = params !== undefined && !Array.isArray(params) ? (params as Readonly<Record<string, SqlValue>>) : null;
  const positional = Array.isArray(params) ? (params as readonly SqlValue[]) : [];
  const values: unknown[] = [];
  const slots = new Map<string, number>();
  let out = '';
  let i = 0;
  let nextPositional = 0;
  while (i < sql.length) {
    const ch = sql[i]!;
    if (ch === "'" || ch === '"') {
      const end = closingQuote(sql, i, ch);
      out += sql.slice(i, end);
      i = end;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end === -1 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop;
    } else if (ch === '?') {
      if (nextPositional >= positional.length)
        throw new Error(`query has more ? placeholders than the ${positional.length} values given`);
      values.push(toPgValue(positional[nextPositional++]!));
      out += `$${values.length}`;
      i += 1;
    } else if (ch === '$' && named && /[A-Za-z_]/.test(sql[i + 1] ?? '')) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(sql.slice(i + 1))!;
      const name = match[0];
      if (!(name in named)) throw new Error(`query names $${name} but no value was given for it`);
      let slot = slots.get(name);
      if (slot === undefined) {
        values.push(toPgValue(named[name]!));
        slot = values.length;
        slots.set(name, slot);
      }
      out += `$${slot}`;
      i += 1 + name.length;
    } else {
      out += ch;
      i += 1;
    }
  }
  return { text: out, values };
}

function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i += 1;
  }
  return sql.length;
}

function toPgValue(v: SqlValue): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return [...(v as ReadonlyArray<string | number>)];
  return v;
}
