import { describe, expect, it } from 'vitest';
import { PackedStrings } from '../../../data/creators/search-index/packed-strings.js';

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
