import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decimalText, integerText, plainDecimal } from '../../../data/number-text.js';

describe('numbers written as text', () => {
  it('a whole number is plain digits with an optional minus; -0 is 0', () => {
    const n = integerText(-10, 1e12);
    expect(['0', '-0', '007', '-10', '1000000000000'].map((s) => n.parse(s))).toEqual([0, 0, 7, -10, 1e12]);
    expect(Object.is(n.parse('-0'), 0)).toBe(true);
    for (const bad of [
      '',
      ' ',
      ' 5',
      '5 ',
      '0x10',
      '1e5',
      '1.0',
      '+5',
      '1_000',
      '1,000',
      'NaN',
      'Infinity',
      '-11',
      '1000000000001',
    ]) {
      expect(n.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('a decimal number may have a fraction but no exponent, and stays within its bounds', () => {
    const n = decimalText(-100, 1e6);
    expect(['12.5', '-100', '-0.0', '1000000'].map((s) => n.parse(s))).toEqual([12.5, -100, 0, 1e6]);
    for (const bad of ['1e20', '1e308', '.5', '5.', '1000000.01', '-100.5', '0x10', '%20', '']) {
      expect(n.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });

  it('plainDecimal writes any finite JSON number in a form decimalText reads back to the same value', () => {
    expect([1e-7, 1e21, -2.5e-8, 123.456, -0, 5e-324].map(plainDecimal)).toEqual([
      '0.0000001',
      '1000000000000000000000',
      '-0.000000025',
      '123.456',
      '0',
      `0.${'0'.repeat(323)}5`,
    ]);
    const any = decimalText(-Number.MAX_VALUE, Number.MAX_VALUE);
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        expect(any.parse(plainDecimal(x))).toBe(x + 0);
      }),
    );
  });
});
