import { z } from 'zod';
import { commonDestinationFields } from '../warehouse/destination-config.js';

/** File formats the files destination writes; Parquet is the one warehouses load fastest. */
export const FILE_FORMATS = ['parquet', 'csv', 'ndjson'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

/** A folder (local, or a mounted bucket) that receives Hive-partitioned files and a manifest. */
export const FilesConfigSchema = z.strictObject({
  type: z.literal('files'),
  /** The folder; a relative path is taken from the destinations file's folder. */
  path: z.string().min(1),
  format: z.enum(FILE_FORMATS).default('parquet'),
  ...commonDestinationFields,
});

export type FilesDestinationConfig = z.infer<typeof FilesConfigSchema>;
