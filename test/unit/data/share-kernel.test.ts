import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bitset } from '../../../data/creators/search-index/bitset.js';
import { passesSum } from '../../../data/creators/search-index/discovery-filters.js';
import { SHARE_KERNEL_BASE64 } from '../../../data/creators/search-index/share-kernel.bytes.js';
import { ShareKernel } from '../../../data/creators/search-index/share-kernel.js';
import { assembleKernel } from '../../../tools/build-kernel.js';

/** Share columns of hundredths (NaN: no share), with many sums landing exactly on whole and half percents. */
const columnsArb = (size: number) =>
  fc.array(
    fc.array(
      fc.oneof(
        fc.integer({ min: 0, max: 10_000 }).map((h) => h / 100),
        fc.integer({ min: 0, max: 40 }).map((h) => h * 2.5),
        fc.constant(Number.NaN),
        fc.constant(0),
      ),
      { minLength: size, maxLength: size },
    ),
    { minLength: 1, maxLength: 7 },
  );

describe('the share kernel', () => {
  it('is the module share-kernel.wat assembles to', async () => {
    expect(Buffer.from(await assembleKernel('share-kernel.wat')).toString('base64')).toBe(SHARE_KERNEL_BASE64);
  });

  it('passes exactly the positions the double sums pass, minimums on and off the hundredths', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }).chain((size) =>
          fc.tuple(
            fc.constant(size),
            columnsArb(size),
            fc.oneof(
              fc.constant(undefined),
              fc.integer({ min: 1, max: 20_000 }).map((h) => h / 100),
              fc.double({ min: 0.001, max: 250, noNaN: true }),
              // every creator holding a share passes, a share of 0 too, one holding none does not
              fc.constantFrom(0, -5),
            ),
          ),
        ),
        ([size, values, minPct]) => {
          const columns = values.map((v) => Float64Array.from(v));
          const kernel = ShareKernel.of(columns, size)!;
          const set = new Bitset(size);
          set.words.fill(0xffffffff);
          const count = kernel.passing(columns, minPct, set);
          const t = { columns, min: minPct ?? 0, strict: minPct === undefined };
          const expected = Array.from({ length: size }, (_, p) => p).filter((p) => passesSum(t, p));
          expect(count).toBe(expected.length);
          expect(Array.from({ length: size }, (_, p) => p).filter((p) => set.has(p))).toEqual(expected);
        },
      ),
      { numRuns: 400, seed: 25 },
    );
  });

  it('holds the sums of edge pairs whose doubles fall below the minimum (0.1 + 0.2 against 0.3 and the like)', () => {
    const a = Float64Array.from([0.1, 0.7, 0.29, 12.34]);
    const b = Float64Array.from([0.2, 0.1, 0.01, 0.66]);
    const kernel = ShareKernel.of([a, b], 4)!;
    for (const min of [0.3, 0.8, 0.3, 13]) {
      const set = new Bitset(4);
      const count = kernel.passing([a, b], min, set);
      const expected = [0, 1, 2, 3].filter((p) => passesSum({ columns: [a, b], min, strict: false }, p));
      expect([count, [0, 1, 2, 3].filter((p) => set.has(p))]).toEqual([expected.length, expected]);
    }
  });

  it('passes a single share equal to the minimum, and not one just below a minimum off the hundredths', () => {
    const shares = Float64Array.from([10, 9.99, 10.01, Number.NaN, 0, 37.5]);
    const kernel = ShareKernel.of([shares], shares.length)!;
    for (const min of [10, 37.5, 0.01, 10.000000001, 9.999999999]) {
      const set = new Bitset(shares.length);
      const count = kernel.passing([shares], min, set);
      const expected = [0, 1, 2, 3, 4, 5].filter((p) => passesSum({ columns: [shares], min, strict: false }, p));
      expect([count, [0, 1, 2, 3, 4, 5].filter((p) => set.has(p))], String(min)).toEqual([expected.length, expected]);
    }
  });

  it('leaves to the caller what it cannot answer: shares off the hundredths, an unknown column', () => {
    const held = Float64Array.from([1.5, Number.NaN, 3]);
    const thirds = Float64Array.from([1 / 3, 2, 3]);
    const kernel = ShareKernel.of([held, thirds], 3)!;
    const set = new Bitset(3);
    expect(kernel.passing([thirds], 1, set)).toBeNull();
    expect(kernel.passing([thirds], 0, set)).toBeNull();
    expect(kernel.passing([Float64Array.from([1, 2, 3])], 1, set)).toBeNull();
    expect(kernel.passing([held], 2, set)).toBe(1);
    expect(ShareKernel.of([thirds], 3)).toBeNull();
  });
});
