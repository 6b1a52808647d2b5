import { describe, expect, it } from 'vitest';
import { toPgQuery } from '../../../data/state/pg-params.js';

describe('placeholders rewritten for PostgreSQL', () => {
  it('numbers ? in order, leaving casts, string literals, quoted names and comments alone', () => {
    const q = toPgQuery(`SELECT '?' AS q, "we?rd", x::VARCHAR -- why?\n FROM t WHERE a = ?::TIMESTAMP AND b = ?`, [
      '2026-01-01',
      5,
    ]);
    expect(q.text).toBe(`SELECT '?' AS q, "we?rd", x::VARCHAR -- why?\n FROM t WHERE a = $1::TIMESTAMP AND b = $2`);
    expect(q.values).toEqual(['2026-01-01', 5]);
  });

  it('binds a $name once however often it appears, and leaves $ inside strings (JSON paths) alone', () => {
    const q = toPgQuery(`SELECT filter->'$.ids', $now::TIMESTAMP, $id WHERE x = $now AND s = 'it''s $id'`, {
      now: 'n',
      id: 'i',
    });
    expect(q.text).toBe(`SELECT filter->'$.ids', $1::TIMESTAMP, $2 WHERE x = $1 AND s = 'it''s $id'`);
    expect(q.values).toEqual(['n', 'i']);
  });

  it('passes arrays as arrays, bigints as text, and names a missing value instead of sending NULL', () => {
    expect(toPgQuery('SELECT ?, ?', [[1, 2], 9007199254740993n]).values).toEqual([[1, 2], '9007199254740993']);
    expect(() => toPgQuery('SELECT $missing', { other: 1 })).toThrow(/\$missing/);
    expect(() => toPgQuery('SELECT ?, ?', [1])).toThrow(/more \? placeholders/);
  });
});
