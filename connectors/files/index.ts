import type { Destination } from '../warehouse/destination.js';
import { pushFiles, testFiles } from './client.js';
import { FilesConfigSchema, type FilesDestinationConfig } from './config.js';
import { classifyFilesError } from './errors.js';

/** The files destination: Hive-partitioned Parquet, CSV or NDJSON under a folder, with `_manifest.json`. */
export const filesDestination: Destination<FilesDestinationConfig> = {
  type: 'files',
  configSchema: FilesConfigSchema,
  testConnection: async (config) => {
    try {
      await testFiles(config);
    } catch (error) {
      throw classifyFilesError(error);
    }
  },
  push: pushFiles,
  classify: classifyFilesError,
};

export { FilesConfigSchema, type FilesDestinationConfig } from './config.js';
