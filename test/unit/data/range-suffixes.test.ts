import { describe, expect, it } from 'vitest';
import { rangeSuffixes } from '../../../data/creators/search-index/search-index.js';

/** A column as the index holds it: values by position (NaN for NULL) and the positions by value, NULLs last. */
function column(values: number[]): { values: Float64Array; asc: Int32Array } {
  const asc = values
    .map((v, p) => [v, p] as const)
    .sort(([a, p], [b, q]) => (Number.isNaN(a) ? 1 : 0) - (Number.isNaN(b) ? 1 : 0) || a - b || p - q)
    .map(([, p]) => p);
  return { values: Float64Array.from(values), asc: Int32Array.from(asc) };
}

describe('range suffix sets', () => {
  it('start where a run of equal values starts, so each is every creator at or above a value', () => {
    // long runs of equal values (a price shared by many), a few distinct ones, and NULLs
    const values = Array.from({ length: 5_000 }, (_, p) =>
      p % 10 === 3 ? Number.NaN : p % 3 === 0 ? 250 : p % 7 === 0 ? 0 : (p * 37) % 400,
    );
    const { values: v, asc } = column(values);
    const { sets, starts, nonNull } = rangeSuffixes({ values: v, asc }, values.length);
    expect(nonNull).toBe(values.filter((x) => !Number.isNaN(x)).length);
    expect(starts[sets.length]).toBe(nonNull);
    expect(sets.length).toBeGreaterThan(16);
    for (let k = 0; k < sets.length; k++) {
      const at = starts[k]!;
      // a run's first position: the value before it is smaller
      if (at > 0) expect(v[asc[at - 1]!]).toBeLessThan(v[asc[at]!]!);
      expect(starts[k + 1]).toBeGreaterThan(at);
      const bound = v[asc[at]!]!;
      const expected = values.flatMap((x, p) => (x >= bound ? [p] : []));
      const held: number[] = [];
      sets[k]!.forEach((p) => held.push(p));
      expect(held, `suffix ${k}`).toEqual(expected);
    }
  });

  it('hold nothing for a column of NULLs, and one set for a single value', () => {
    expect(rangeSuffixes(column([Number.NaN, Number.NaN]), 2).sets).toHaveLength(0);
    const one = rangeSuffixes(column([5, 5, 5, Number.NaN]), 4);
    expect(one.sets).toHaveLength(1);
    expect(Array.from(one.starts)).toEqual([0, 3]);
  });
});
