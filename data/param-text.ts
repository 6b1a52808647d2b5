import { ISO_COUNTRY_CODES, ISO_LANGUAGE_CODES } from './reference/iso-codes.js';
import { z } from 'zod';

/**
 * Parameters written as text (query strings, export filters): codes, flags and
 * comma lists, read the same way wherever they come from. Numbers are in
 * data/number-text.ts. The HTTP layer re-exports these (server/http/query-params.ts).
 */

/** `true` / `false`. */
export const boolParam = z.enum(['true', 'false']).transform((v) => v === 'true');

/** One value or a comma list from a fixed set (`niche=food,travel`), any case; duplicates removed. */
export function csvEnum<T extends readonly [string, ...string[]]>(values: T) {
  const allowed = new Set<string>(values);
  return z
    .string()
    .transform((s, ctx) => {
      const parts = [
        ...new Set(
          s
            .split(',')
            .map((p) => p.trim().toLowerCase())
            .filter((p) => p.length > 0),
        ),
      ];
      const bad = parts.filter((p) => !allowed.has(p));
      if (parts.length === 0) ctx.addIssue({ code: 'custom', message: 'must not be empty' });
      if (bad.length > 0)
        ctx.addIssue({ code: 'custom', message: `unknown value ${bad.join(', ')}; one of ${values.join(', ')}` });
      return parts as Array<T[number]>;
    })
    .describe(`One or a comma list of: ${values.join(', ')}`);
}

/** The one list of codes the API and ingestion both accept (data/reference/iso-codes.ts). */
const COUNTRIES: ReadonlySet<string> = new Set(ISO_COUNTRY_CODES);
const LANGUAGES: ReadonlySet<string> = new Set(ISO_LANGUAGE_CODES);

/** True for an assigned ISO 3166-1 alpha-2 code (upper case): exactly the codes ingestion accepts. */
export function isCountryCode(code: string): boolean {
  return COUNTRIES.has(code);
}

/** True for an ISO 639-1 language code (lower case): exactly the codes ingestion accepts. */
export function isLanguageCode(code: string): boolean {
  return LANGUAGES.has(code);
}

/** An ISO 3166-1 alpha-2 country code, any case in, upper case out. */
export const countryParam = z
  .string()
  .transform((s) => s.trim().toUpperCase())
  .refine(isCountryCode, 'must be an ISO 3166-1 alpha-2 country code like US')
  .describe('ISO 3166-1 alpha-2 country code');

/** An ISO 639-1 language code, any case in, lower case out. */
export const languageParam = z
  .string()
  .transform((s) => s.trim().toLowerCase())
  .refine(isLanguageCode, 'must be an ISO 639-1 language code like en')
  .describe('ISO 639-1 language code');

/** A tag, mention or brand handle: letters, digits, `_` and `.` (Unicode letters and digits too), 1–64 of them. */
const TERM = /^[\p{L}\p{N}_.]{1,64}$/u;

/**
 * A comma list of hashtags or handles (up to 20), any case, the sign (`#` or
 * `@`) optional: lower case out, without the sign, duplicates removed. A value
 * of another shape is refused, naming it.
 */
export function termListParam(sign: '#' | '@', what: string) {
  return z.string().transform((s, ctx) => {
    const parts = [
      ...new Set(
        s
          .split(',')
          .map((p) => p.trim().toLowerCase())
          .filter((p) => p.length > 0)
          .map((p) => (p.startsWith(sign) ? p.slice(1) : p)),
      ),
    ];
    const bad = parts.filter((p) => !TERM.test(p));
    if (parts.length === 0) ctx.addIssue({ code: 'custom', message: 'must not be empty' });
    if (parts.length > 20) ctx.addIssue({ code: 'custom', message: 'at most 20 values' });
    if (bad.length > 0)
      ctx.addIssue({
        code: 'custom',
        message: `not a ${what}: ${bad.map((b) => JSON.stringify(b)).join(', ')} (letters, digits, _ and ., 1–64)`,
      });
    return parts;
  });
}

/** Words of a text: runs of Unicode letters, digits and `_`, lower case (as the store splits captions). */
export function wordsOf(text: string): string[] {
  return [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])];
}
