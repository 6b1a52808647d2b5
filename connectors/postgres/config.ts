import { z } from 'zod';
import { commonDestinationFields } from '../warehouse/destination-config.js';

/** A PostgreSQL destination: where, which schema, how patient. */
export const PostgresConfigSchema = z.strictObject({
  type: z.literal('postgres'),
  /** `postgres://user:password@host:port/database` (libpq URL; `?sslmode=require` works). */
  url: z.string().regex(/^postgres(ql)?:\/\//, 'a postgres:// URL'),
  /** The schema the tables are created in. */
  schema: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]{0,62}$/, 'a plain SQL identifier')
    .default('cds'),
  connect_timeout_ms: z.number().int().min(100).max(120_000).default(10_000),
  /** Rows per CSV part DuckDB writes while the previous part is being copied (export and load overlap). */
  copy_part_rows: z.number().int().min(1_000).max(10_000_000).default(100_000),
  ...commonDestinationFields,
});

export type PostgresDestinationConfig = z.infer<typeof PostgresConfigSchema>;
