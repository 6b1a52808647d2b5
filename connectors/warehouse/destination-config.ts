import { validate as validateCron } from 'node-cron';
import { z } from 'zod';
import { SYNC_TABLE_NAMES } from './tables.js';

/** Fields every destination's config has besides its own: which tables, and when to sync. */
export const commonDestinationFields = {
  /** Tables to sync; all of them when left out. */
  tables: z.array(z.enum(SYNC_TABLE_NAMES)).min(1).optional(),
  /** A cron expression; a destination without one is synced only by `cds sync`. */
  schedule: z
    .string()
    .refine((s) => validateCron(s), 'not a cron expression, e.g. "*/15 * * * *"')
    .optional(),
};
