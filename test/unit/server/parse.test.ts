import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ValidationError } from '../../../data/errors.js';
import { parseBody, parseQuery } from '../../../server/http/parse.js';
import { countryParam, csvEnum, isCountryCode, isLanguageCode } from '../../../server/http/query-params.js';

const ctxWith = (query: Record<string, string | string[]>, body?: unknown): Context =>
  ({ query, request: { body } }) as unknown as Context;

function errorsOf(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('no error thrown');
}

describe('parseQuery', () => {
  const schema = z.object({
    n: z.coerce.number().int().min(1),
    tags: csvEnum(['a', 'b'] as const).optional(),
    c: countryParam.optional(),
  });

  it('returns typed, transformed values', () => {
    expect(parseQuery(ctxWith({ n: '3', tags: 'a,B,a', c: 'gb' }), schema)).toEqual({
      n: 3,
      tags: ['a', 'b'],
      c: 'GB',
    });
  });

  it('names every unknown, repeated and invalid parameter in one invalid_parameter error', () => {
    const e = errorsOf(() => parseQuery(ctxWith({ n: '0', x: '1', tags: ['a', 'b'], c: 'ZZ' }), schema));
    expect(e.code).toBe('invalid_parameter');
    expect(e.errors.map((x) => x.param).sort()).toEqual(['c', 'n', 'tags', 'x']);
  });
});

describe('messages', () => {
  it('say "required" only for a missing value, and the expected type for a wrong one', () => {
    const schema = z.object({ n: z.coerce.number().int(), m: z.coerce.number() });
    const e = errorsOf(() => parseQuery(ctxWith({ n: '1.5', m: 'abc' }), schema));
    expect(e.errors).toEqual([
      { param: 'n', message: 'must be a whole number' },
      { param: 'm', message: 'must be a number' },
    ]);
    const missing = errorsOf(() => parseBody(ctxWith({}, {}), z.object({ name: z.string() })));
    expect(missing.errors).toEqual([{ field: 'name', message: 'required' }]);
  });
});

describe('parseBody', () => {
  it('rejects unknown top-level and nested fields as invalid_body with dotted paths', () => {
    const schema = z.object({ name: z.string(), filter: z.strictObject({ ids: z.array(z.string()) }).optional() });
    const e = errorsOf(() =>
      parseBody(ctxWith({}, { name: 'x', extra: 1, filter: { ids: [1], other: true } }), schema),
    );
    expect(e.code).toBe('invalid_body');
    expect(e.errors.map((x) => x.field).sort()).toEqual(['extra', 'filter.ids.0', 'filter.other']);
  });
});

describe('ISO codes', () => {
  it('knows assigned country and language codes', () => {
    expect(['US', 'GB', 'BR', 'NZ'].every(isCountryCode)).toBe(true);
    expect(['XX', 'ZZ', 'EU', 'UK', 'usa'].some(isCountryCode)).toBe(false);
    expect(['en', 'pt', 'hi'].every(isLanguageCode)).toBe(true);
    expect(['xx', 'eng', 'EN'].some(isLanguageCode)).toBe(false);
    // one list with ingestion: codes Intl.DisplayNames knows but ISO does not assign (Kosovo, the USSR; old Hebrew and Indonesian)
    expect(['XK', 'SU', 'YU', 'DD'].some(isCountryCode)).toBe(false);
    expect(['iw', 'in', 'ji', 'jw'].some(isLanguageCode)).toBe(false);
  });
});
