import { describe, expect, it } from 'vitest';
import { gapCoded, PackedTrigrams } from '../../../data/creators/search-index/text-index.js';

describe('the text index, delta-coded', () => {
  it('codes ascending lists as gaps of one to five bytes and gives them back exact', () => {
    const lists = [[0, 127, 128, 16_384, 2_097_152, 268_435_456, 300_000_000], [], [5, 6, 7]];
    const offsets = Int32Array.from([0, ...lists.map((_, k) => lists.slice(0, k + 1).flat().length)]);
    const coded = gapCoded(offsets, Int32Array.from(lists.flat()));
    // gaps 0, 127, 1, 16,256, 2,080,768, 266,338,304, 31,564,544: 1+1+1+2+3+4+4 bytes; nothing; 1+1+1
    expect(Array.from(coded.offsets)).toEqual([0, 16, 16, 19]);
    const trigrams = PackedTrigrams.of(new Map(lists.map((list, k) => [`ab${k}`, Int32Array.from(list)])));
    lists.forEach((list, k) => {
      expect(Array.from(trigrams.get(`ab${k}`)!)).toEqual(list);
    });
    expect(trigrams.get('zzz')).toBeUndefined();
  });
});
