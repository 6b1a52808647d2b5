import type { Destination } from '../warehouse/destination.js';
import { pushPostgres, testPostgres } from './client.js';
import { PostgresConfigSchema, type PostgresDestinationConfig } from './config.js';
import { classifyPostgresError } from './errors.js';

/** The PostgreSQL warehouse destination: COPY into staging, one set-based upsert per table, per-table transactions. */
export const postgresDestination: Destination<PostgresDestinationConfig> = {
  type: 'postgres',
  configSchema: PostgresConfigSchema,
  testConnection: async (config) => {
    try {
      await testPostgres(config);
    } catch (error) {
      throw classifyPostgresError(error);
    }
  },
  push: pushPostgres,
  classify: classifyPostgresError,
};

export { PostgresConfigSchema, type PostgresDestinationConfig } from './config.js';
