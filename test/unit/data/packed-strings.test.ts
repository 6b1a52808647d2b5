import { describe, expect, it } from 'vitest';
import { ArrayStrings, PackedStringList, PackedStrings } from '../../../data/creators/search-index/packed-strings.js';

describe('strings packed by position', () => {
  it('answers every string as pushed, across block boundaries, with nulls, empty and multi-byte text', () => {
    const values = Array.from({ length: 140_000 }, (_, i) => {
      if (i % 9_973 === 0) return null;
      if (i % 7_919 === 0) return '';
      return i % 5 === 0 ? `Zoë ${i} 🎉 日本` : `@creator_${i}`;
    });
    const builder = PackedStrings.builder();
    for (const v of values) builder.push(v);
    const packed = builder.build();
    expect(packed.length).toBe(values.length);
    for (const i of [0, 1, 65_535, 65_536, 65_537, 131_071, 131_072, 139_999, 9_973, 7_919, 5, 65_540]) {
      expect(packed.get(i), `position ${i}`).toBe(values[i]);
    }
    expect(values.every((v, i) => packed.get(i) === v)).toBe(true);
    expect(packed.get(140_000)).toBeNull();
  });

  it('is empty when nothing was pushed', () => {
    const packed = PackedStrings.builder().build();
    expect(packed.length).toBe(0);
    expect(packed.get(0)).toBeNull();
  });
});

describe('a packed string list (text tokens, vocabularies opened from index files)', () => {
  const values = ['fitness', '', 'zoë', 'ab', 'cab', '🎉party', 'bcd', 'a'];

  it('answers each string, and every string containing a word exactly as includes() over the strings does', () => {
    const packed = PackedStringList.of(values);
    const plain = new ArrayStrings(values);
    expect(values.map((_, i) => packed.get(i))).toEqual(values);
    expect(packed.toArray()).toEqual(values);
    // a match may not run from one string into the next ('ab' + 'cab' hold 'bc' only across their boundary)
    for (const word of ['a', 'b', 'ab', 'bc', 'ë', 'oë', '🎉', 'party', 'ness', 'x', 'fitnessab'])
      expect(packed.containing(word), word).toEqual(plain.containing(word));
  });

  it('decodes an ASCII vocabulary and one with other characters alike', () => {
    const ascii = ['alpha', 'beta', '', 'gamma'];
    expect(PackedStringList.of(ascii).toArray()).toEqual(ascii);
    expect(PackedStringList.of(['naïve', 'b', '日本']).toArray()).toEqual(['naïve', 'b', '日本']);
  });
});
