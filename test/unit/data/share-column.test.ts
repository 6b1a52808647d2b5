import { describe, expect, it } from 'vitest';
import { compactShares, NO_SHARE, shareAt, sharesInto } from '../../../data/creators/search-index/share-column.js';

describe('share columns', () => {
  it('hold hundredths from 0 to 100 in 16 bits and read them back as the very doubles given', () => {
    const values = Float64Array.of(12.3, Number.NaN, 0, 100, 0.01, 33.33, 99.99, 57.1);
    const column = compactShares(values);
    expect(column).toBeInstanceOf(Uint16Array);
    expect(column[1]).toBe(NO_SHARE);
    const back = Array.from(values, (_, i) => shareAt(column, i));
    expect(back).toEqual(Array.from(values));
    expect(Array.from(sharesInto(column, new Float64Array(values.length)))).toEqual(Array.from(values));
  });

  it('keep doubles when a share is off the hundredths or outside 0–100 (a store written before shares were rounded)', () => {
    for (const odd of [12.345, -1, 100.5]) {
      const values = Float64Array.of(1, odd, Number.NaN);
      const column = compactShares(values);
      expect(column).toBe(values);
      expect(shareAt(column, 1)).toBe(odd);
    }
  });
});
