import { z } from 'zod';
import { decimalText, integerText } from '../../data/number-text.js';
import { parseDateText } from '../../data/timestamps.js';

/** The text-parameter vocabulary lives below the server, where the export's search filters use it too. */
export {
  boolParam,
  countryParam,
  csvEnum,
  isCountryCode,
  isLanguageCode,
  languageParam,
} from '../../data/param-text.js';

/**
 * A number query parameter within [min, max], in plain decimal notation only
 * (data/number-text.ts): no exponent, hex, spaces or empty value; `-0` is 0.
 */
export function numberParam(min: number, max: number, description?: string) {
  return decimalText(min, max, description);
}

/** A whole-number query parameter within [min, max], in plain digits only; `-0` is 0. */
export function intParam(min: number, max: number, description?: string) {
  return integerText(min, max, description);
}

/** A `YYYY-MM-DD` date query parameter that is a real calendar date. */
export const dateParam = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')
  .refine((s) => parseDateText(s) !== null, 'not a calendar date');
