/**
 * Audience shares by position or in a key's list, as the index holds them: 16-bit
 * hundredths of a percent when every share of the column is a hundredth from 0
 * to 100 (the pipeline rounds shares so, docs/data-formats.md), 2 bytes a share
 * instead of a double's 8; doubles otherwise (a store written before shares were
 * rounded). A hundredth `k` reads back as `k / 100`, the very double the SQL
 * holds for it (that double is the one nearest k/100, which the division gives),
 * so every comparison and sum is the SQL's.
 */
export type ShareColumn = Float64Array | Uint16Array;

/** A position holding no share, in a 16-bit column (NaN in a column of doubles). */
export const NO_SHARE = 0xffff;

/** The share at `i` as the SQL's double (NaN: none). */
export function shareAt(column: ShareColumn, i: number): number {
  if (column instanceof Float64Array) return column[i]!;
  const v = column[i]!;
  return v === NO_SHARE ? Number.NaN : v / 100;
}

/** The column as 16-bit hundredths when every share (NaN: none) is a hundredth from 0 to 100; as it is otherwise. */
export function compactShares(values: Float64Array): ShareColumn {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v !== v) continue;
    if (!(v >= 0 && v <= 100) || Math.round(v * 100) / 100 !== v) return values;
  }
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    out[i] = v === v ? Math.round(v * 100) : NO_SHARE;
  }
  return out;
}

/** The shares as doubles into `out` (NaN: none): a column of doubles is copied as it is. */
export function sharesInto(column: ShareColumn, out: Float64Array): Float64Array {
  if (column instanceof Float64Array) out.set(column);
  else
    for (let i = 0; i < column.length; i++) {
      const v = column[i]!;
      out[i] = v === NO_SHARE ? Number.NaN : v / 100;
    }
  return out;
}
