import { z } from 'zod';

/**
 * Numbers written as text (query parameters, export filters) are read strictly:
 * `Number()` would take `' 5'` as 5, `''` and `' '` as 0, `0x10` as 16 and
 * `1e20` as a value no column can hold, so a typo would silently change a
 * filter. Only plain decimal notation passes; anything else is a 400.
 */
export const INTEGER_TEXT = /^-?\d+$/;
/** Plain decimal text: optional minus, digits, optional `.digits`; no exponent. */
export const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

/** The rule as the API documents it (OpenAPI descriptions, 400 messages). */
export const INTEGER_RULE = 'plain digits with an optional leading -, no exponent, hex, spaces or separators';
export const DECIMAL_RULE =
  'plain decimal notation like 12.5 (optional leading -, no exponent, hex, spaces or separators)';

/**
 * A whole number written as text, within [min, max]. The OpenAPI document shows
 * it as `type: integer` with its bounds; the format rule goes in the description.
 */
export function integerText(min: number, max: number, description?: string) {
  return boundedText(INTEGER_TEXT, `must be a whole number in ${INTEGER_RULE}`, z.number().int(), min, max).meta({
    type: 'integer',
    minimum: min,
    maximum: max,
    description: describeBounds(description, 'A whole number', min, max, INTEGER_RULE),
  });
}

/** A decimal number written as text, within [min, max]; `type: number` in the OpenAPI document. */
export function decimalText(min: number, max: number, description?: string) {
  return boundedText(DECIMAL_TEXT, `must be a number in ${DECIMAL_RULE}`, z.number(), min, max).meta({
    type: 'number',
    minimum: min,
    maximum: max,
    description: describeBounds(description, 'A number', min, max, DECIMAL_RULE),
  });
}

function boundedText(pattern: RegExp, formatMessage: string, target: z.ZodNumber, min: number, max: number) {
  return (
    z
      .string()
      .refine((s) => pattern.test(s), formatMessage)
      // `+ 0` turns -0 into 0, so "-0" means the same as "0" downstream (cache keys, SQL)
      .transform((s) => Number(s) + 0)
      .pipe(target.min(min, `must be ≥ ${min}`).max(max, `must be ≤ ${max}`))
  );
}

function describeBounds(what: string | undefined, kind: string, min: number, max: number, rule: string): string {
  const range = `${kind} from ${min.toLocaleString('en-US')} to ${max.toLocaleString('en-US')}, in ${rule}`;
  return what ? `${what}. ${range}` : range;
}

/**
 * A JSON number as text `DECIMAL_TEXT` accepts: `String()` writes 1e-7 and 1e21
 * in exponent form, which a JSON client did not choose, so expand it exactly.
 */
export function plainDecimal(n: number): string {
  const text = String(n + 0);
  const match = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign = '', whole = '', fraction = '', exp = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exp);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
