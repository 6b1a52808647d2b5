import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Bitset } from '../../../data/creators/search-index/bitset.js';

/** Sizes around word boundaries (the counts take two words a step and an odd last word alone), and larger. */
const sizeArb = fc.oneof(fc.constantFrom(1, 31, 32, 33, 63, 64, 65, 95, 96, 97), fc.integer({ min: 1, max: 3000 }));

describe('bit arrays', () => {
  it('count, intersect and count shared members exactly, whatever the size', () => {
    fc.assert(
      fc.property(
        sizeArb.chain((size) =>
          fc.tuple(
            fc.constant(size),
            fc.array(fc.array(fc.boolean(), { minLength: size, maxLength: size }), { minLength: 1, maxLength: 5 }),
          ),
        ),
        ([size, members]) => {
          const sets = members.map((m) =>
            Bitset.of(
              size,
              m.flatMap((yes, p) => (yes ? [p] : [])),
            ),
          );
          const inAll = Array.from({ length: size }, (_, p) => p).filter((p) => members.every((m) => m[p]));
          const { set, count } = Bitset.intersect(sets);
          expect(count).toBe(inAll.length);
          expect(set.count()).toBe(inAll.length);
          expect(Array.from({ length: size }, (_, p) => p).filter((p) => set.has(p))).toEqual(inAll);
          const both = Array.from({ length: size }, (_, p) => p).filter((p) => members[0]![p] && members.at(-1)![p]);
          expect(Bitset.countBoth(sets[0]!, sets.at(-1)!)).toBe(both.length);
        },
      ),
      { numRuns: 300, seed: 29 },
    );
  });
});
