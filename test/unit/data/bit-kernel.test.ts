import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BitKernel } from '../../../data/creators/search-index/bit-kernel.js';
import { BIT_KERNEL_BASE64 } from '../../../data/creators/search-index/bit-kernel.bytes.js';
import { Bitset } from '../../../data/creators/search-index/bitset.js';
import { assembleKernel } from '../../../tools/build-kernel.js';

/** Bit arrays of one size, dense and sparse, each held by the kernel or on the heap as drawn. */
const setsArb = fc.integer({ min: 1, max: 700 }).chain((size) =>
  fc.tuple(
    fc.constant(size),
    fc.array(
      fc.record({
        members: fc.oneof(
          fc.uniqueArray(fc.integer({ min: 0, max: size - 1 }), { maxLength: size }),
          fc.constant(Array.from({ length: size }, (_, p) => p)),
        ),
        held: fc.boolean(),
      }),
      { minLength: 1, maxLength: 9 },
    ),
  ),
);

/** The members of a set, by testing every position (no word loop of Bitset's involved). */
const members = (set: Bitset): number[] => Array.from({ length: set.size }, (_, p) => p).filter((p) => set.has(p));

describe('the bit kernel', () => {
  it('is the module bit-kernel.wat assembles to', async () => {
    expect(Buffer.from(await assembleKernel('bit-kernel.wat')).toString('base64')).toBe(BIT_KERNEL_BASE64);
  });

  it('intersects, counts, ANDs NOT, ORs and writes listed positions as the JavaScript loops do, operands held or not', () => {
    fc.assert(
      fc.property(setsArb, ([size, drawn]) => {
        const kernel = BitKernel.create((size + 31) >>> 5)!;
        const make = (positions: readonly number[], held: boolean): Bitset =>
          Bitset.of(size, positions, held ? new Bitset(size, kernel.slot()!) : undefined);
        const sets = drawn.map((d) => make(d.members, d.held));
        const heap = drawn.map((d) => Bitset.of(size, d.members));
        const inAll = (p: number): boolean => heap.every((s) => s.has(p));
        const expected = Array.from({ length: size }, (_, p) => p).filter(inAll);

        const out = new Bitset(size, kernel.slot()!);
        const { set, count } = Bitset.intersect(sets, out);
        expect(set).toBe(sets.length === 1 ? sets[0] : out);
        expect(count).toBe(expected.length);
        expect(members(set)).toEqual(expected);
        expect(out.count()).toBe(sets.length === 1 ? 0 : expected.length);

        // counted together, either one held
        const last = sets[sets.length - 1]!;
        expect(Bitset.countBoth(heap[0]!, last)).toBe(members(heap[0]!).filter((p) => last.has(p)).length);

        // in place, on a held set, with a held or heap operand
        const first = heap[0]!;
        const other = sets[sets.length - 1]!;
        const held = new Bitset(size, kernel.slot()!);
        first.copy(held).andNotInPlace(other);
        expect(members(held)).toEqual(members(first).filter((p) => !other.has(p)));
        first.copy(held).orInPlace(other);
        expect(members(held)).toEqual(
          Array.from({ length: size }, (_, p) => p).filter((p) => first.has(p) || other.has(p)),
        );
        expect(held.count()).toBe(members(held).length);

        // listed positions set and cleared (more of them than a staging slot's words: written in parts)
        const listed = Int32Array.from(drawn[drawn.length - 1]!.members);
        const inList = new Set(listed);
        expect(members(Bitset.of(size, listed, held))).toEqual([...inList].sort((x, y) => x - y));
        first.copy(held).removeAll(listed);
        expect(members(held)).toEqual(members(first).filter((p) => !inList.has(p)));
        held.words.fill(0);
        held.addAll(listed.subarray(1)).addAll(listed.subarray(0, 1));
        expect(held.count()).toBe(inList.size);
      }),
      { numRuns: 300, seed: 41 },
    );
  });

  it('refuses an operand of another length, and runs out of slots rather than overlap them', () => {
    const kernel = BitKernel.create(4)!;
    const slots: Uint32Array[] = [];
    for (let s = kernel.slot(); s; s = kernel.slot()) slots.push(s);
    expect(slots.length).toBe(32);
    // every slot its own bytes
    const starts = slots.map((s) => s.byteOffset).sort((a, b) => a - b);
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(16);
    expect(() => kernel.or(slots[0]!, new Uint32Array(5))).toThrow(/another length/);
  });
});
