import { describe, expect, it } from 'vitest';
import { Bitset } from '../../../data/creators/search-index/bitset.js';
import { sortTerms, TermPostings, TermPostingsBuilder } from '../../../data/creators/search-index/term-postings.js';

/** Builds postings from `held[p]` = the terms position p holds, the way the loader feeds them (by code, then position). */
function build(held: string[][], runs = false): TermPostings {
  const terms = sortTerms([...new Set(held.flat())]);
  const pairs = held
    .flatMap((ts, p) => ts.map((t) => [terms.indexOf(t), p] as const))
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const builder = new TermPostingsBuilder(held.length, terms, pairs.length);
  for (const [code, p] of pairs) builder.add(code, p);
  return builder.finish({ runs });
}

const positions = (set: Bitset): number[] => {
  const out: number[] = [];
  set.forEach((p) => out.push(p));
  return out;
};

describe('term postings', () => {
  // position p holds: a frequent term, a rare one, words sharing prefixes, and text past the BMP (sorted by code unit)
  const held = Array.from({ length: 200 }, (_, p) => [
    'common',
    ...(p % 50 === 0 ? ['rare'] : []),
    `meal${p % 3}`,
    p % 7 === 0 ? 'mealprep' : 'prepare',
    p % 11 === 0 ? '😀smile' : 'ｆｕｌｌ',
    'common',
  ]);
  const index = build(held);

  it('answers the holders of any of the terms, exactly', () => {
    const rare = index.any(['rare', 'nothere'], () => new Bitset(200), 1_000);
    expect(rare.list && Array.from(rare.list)).toEqual([0, 50, 100, 150]);
    const both = index.any(['rare', 'mealprep'], () => new Bitset(200), 1_000);
    expect(positions(both.set)).toEqual(
      held.flatMap((ts, p) => (ts.includes('rare') || ts.includes('mealprep') ? [p] : [])),
    );
    expect(both.size).toBe(positions(both.set).length);
    // a frequent term answers from its bit array; a repeated term of one holder is posted once
    expect(index.any(['common'], () => new Bitset(200), 1_000).size).toBe(200);
  });

  it('finds every term starting with a prefix as one range of the sorted terms, astral characters included', () => {
    for (const prefix of ['meal', 'mealp', 'me', 'prep', '😀', '\ud83d', 'ｆ', 'z']) {
      const expected = held.flatMap((ts, p) => (ts.some((t) => t.startsWith(prefix)) ? [p] : []));
      expect(positions(index.startingWith(prefix, 1_000).set), prefix).toEqual(expected);
    }
  });

  it('lists matches only when they are few enough to drive a search', () => {
    expect(index.startingWith('meal', 10).list).toBeNull();
    expect(index.startingWith('mealprep', 100).list?.length).toBe(29);
  });

  it('keeps the broad prefixes as bit arrays, and answers every prefix as the terms themselves do', () => {
    // 600 creators, each with a few of 300 words under 3 stems (the words sharing prefixes at every length)
    const stems = ['beach', 'budget', 'bud'];
    const words = (p: number): string[] =>
      Array.from({ length: 1 + (p % 5) }, (_, k) => `${stems[(p + k) % 3]}${(p * 7 + k * 13) % 100}`);
    const many = Array.from({ length: 600 }, (_, p) => words(p));
    const plain = build(many);
    const withRuns = build(many, true);
    expect(plain.runs.sets).toHaveLength(0);
    expect(withRuns.runs.sets.length).toBeGreaterThan(0);
    // each kept run is the union of its terms, and counts it
    for (let r = 0; r < withRuns.runs.from.length; r++) {
      const from = withRuns.runs.from[r]!;
      const to = withRuns.runs.to[r]!;
      const expected = many.flatMap((ts, p) => (ts.some((t) => withRuns.terms.slice(from, to).includes(t)) ? [p] : []));
      expect(positions(withRuns.runs.sets[r]!)).toEqual(expected);
      expect(withRuns.runs.counts[r]).toBe(expected.length);
    }
    // a run that longer prefixes already make (budg, budge = budget's terms) is kept once
    const spans = Array.from(withRuns.runs.from, (f, r) => `${f}:${withRuns.runs.to[r]}`);
    expect(new Set(spans).size).toBe(spans.length);
    // a prefix whose terms are one kept run answers with the run's own array, not a copy
    expect(withRuns.runs.sets).toContain(withRuns.startingWith('budget', 0).set);
    for (const prefix of ['b', 'be', 'bud', 'budg', 'budget', 'budget1', 'beach9', 'bea', 'budget42', 'c', 'x']) {
      const expected = many.flatMap((ts, p) => (ts.some((t) => t.startsWith(prefix)) ? [p] : []));
      for (const listMax of [0, 10_000]) {
        const match = withRuns.startingWith(prefix, listMax);
        expect(positions(match.set), prefix).toEqual(expected);
        expect(match.size, prefix).toBe(expected.length);
        // a list, when given, is the same positions; under a bound they all fit, it is given
        if (match.list || listMax > 0) expect(match.list && Array.from(match.list), prefix).toEqual(expected);
        expect(positions(plain.startingWith(prefix, listMax).set), prefix).toEqual(expected);
      }
    }
  });

  it('keeps at most 128 runs, raising the bar evenly when more prefixes are broad', () => {
    // 400 stems of two letters each, every one broad enough at the first bar: the runs kept are the broadest
    const letters = 'abcdefghijklmnopqrst';
    const stems = Array.from({ length: 400 }, (_, i) => `${letters[i % 20]}${letters[Math.floor(i / 20)]}`);
    const many = Array.from({ length: 2_000 }, (_, p) =>
      Array.from({ length: 30 }, (_, k) => `${stems[(p * 31 + k * 17) % 400]}${k % 3}`),
    );
    const index = build(many, true);
    expect(index.runs.sets.length).toBeGreaterThan(0);
    expect(index.runs.sets.length).toBeLessThanOrEqual(128);
    for (const prefix of ['a', 'ab', 'ab1', 't', 'tt', 'tt2', 'q']) {
      const expected = many.flatMap((ts, p) => (ts.some((t) => t.startsWith(prefix)) ? [p] : []));
      expect(positions(index.startingWith(prefix, 0).set), prefix).toEqual(expected);
    }
  });

  it('codes each position as its gap from the previous one: gaps of one to five bytes come back exact', () => {
    const size = 300_000_000;
    const far = [0, 127, 128, 16_383, 16_384, 2_097_151, 2_097_152, 268_435_455, 268_435_456, size - 1];
    const near = [5, 6, 7, 1_000, 1_001];
    const postings = TermPostings.of(
      size,
      ['far', 'near', 'none'],
      Int32Array.of(0, far.length, far.length + near.length, far.length + near.length),
      Int32Array.from([...far, ...near]),
      new Map(),
    );
    expect(Array.from(postings.holders(0))).toEqual(far);
    expect(Array.from(postings.holders(1))).toEqual(near);
    expect([postings.count(0), postings.count(1), postings.count(2)]).toEqual([far.length, near.length, 0]);
    // fewer bytes than 4 a position, the near ones a byte each
    expect(postings.offsets[1]).toBeLessThan(far.length * 4);
    const bits = postings.any(['far', 'near'], () => new Bitset(size), 100);
    expect(bits.list && Array.from(bits.list)).toEqual([...far, ...near].sort((a, b) => a - b));
  });
});
