import { z } from 'zod';
import { intParam } from './query-params.js';

/** `limit` query parameter: 1–100, default 20. */
export const limitParam = intParam(1, 100, 'Page size (default 20)').default(20).meta({ default: 20 });

/** `cursor` query parameter: the previous page's `next_cursor`. */
export const cursorParam = z
  .string()
  .min(1)
  .max(2048)
  .optional()
  .describe("The previous page's `next_cursor`; omit for the first page");

/** The collection envelope `{ data: [...], next_cursor }` for an item schema. */
export function pageOf<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    next_cursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page'),
  });
}
