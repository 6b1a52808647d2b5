import { describe, expect, it } from 'vitest';
import { parseDateText, parseTimeText } from '../../../data/timestamps.js';

describe('one parser for the dates and times the API and CLI take', () => {
  it.each([
    '2027-02-30',
    '2026-11-31',
    '2026-13-01',
    '2026-00-10',
    '2026-04-31',
    '2025-02-29',
    '2026-1-01',
    '26-01-01',
    '',
  ])('refuses the impossible or malformed date %s instead of shifting it', (text) => {
    expect(parseDateText(text)).toBeNull();
  });

  it.each([
    ['2024-02-29', Date.UTC(2024, 1, 29)],
    ['2026-12-31', Date.UTC(2026, 11, 31)],
  ])('reads the real date %s', (text, ms) => {
    expect(parseDateText(text)).toBe(ms);
  });

  it.each([
    '2027-02-30T00:00:00Z',
    '2026-11-31T10:00:00Z',
    '2026-11-01T24:00:00Z',
    '2026-11-01T10:60:00Z',
    '2026-11-01T10:00:61Z',
    '2026-11-01T10:00:00+24:00',
    '2026-11-01T10:00:00',
    '2026-11-01',
    'tomorrow',
  ])('refuses the impossible or zone-less time %s', (text) => {
    expect(parseTimeText(text)).toBeNull();
  });

  it.each([
    ['2027-01-01T00:00:00Z', Date.UTC(2027, 0, 1)],
    ['2027-01-01T00:00Z', Date.UTC(2027, 0, 1)],
    ['2027-01-01T02:30:00+02:30', Date.UTC(2027, 0, 1)],
    ['2026-12-31T19:00:00.250-05:00', Date.UTC(2027, 0, 1, 0, 0, 0, 250)],
  ])('reads the RFC 3339 time %s', (text, ms) => {
    expect(parseTimeText(text)).toBe(ms);
  });
});
