import { describe, expect, it } from 'vitest';
import { bytes } from '../../../server/console/client/format.js';

describe('console byte sizes', () => {
  it.each([
    [1024 ** 3, '1 GiB'],
    [5 * 1024 ** 2, '5 MiB'],
    [1536, '1.5 KiB'],
    [512, '512 B'],
    [null, '–'],
  ])('shows %s as %s (binary units, as plan limits are set)', (n, text) => {
    expect(bytes(n)).toBe(text);
  });
});
