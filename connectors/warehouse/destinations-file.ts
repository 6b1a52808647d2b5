import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { FilesConfigSchema } from '../files/config.js';
import { PostgresConfigSchema } from '../postgres/config.js';
import type { DestinationConfig } from './registry.js';

/** A destinations file that is missing, not JSON, or fails validation; the message names the file and the field. */
export class DestinationConfigError extends Error {
  override name = 'DestinationConfigError';
}

const DestinationsSchema = z.record(
  z.string().regex(/^[a-z][a-z0-9_-]{0,62}$/, 'destination names are lower-case letters, digits, - and _'),
  z.discriminatedUnion('type', [PostgresConfigSchema, FilesConfigSchema]),
);

/**
 * Reads the destinations file (`CDS_SYNC_DESTINATIONS`): a JSON object of
 * name → config, e.g. `{"warehouse": {"type": "postgres", "url": "postgres://…",
 * "schedule": "0 * * * *"}, "lake": {"type": "files", "path": "lake"}}`.
 * No file configured means no destinations.
 */
export function loadDestinations(path: string | null): Map<string, DestinationConfig> {
  if (path === null) return new Map();
  if (!existsSync(path)) throw new DestinationConfigError(`the destinations file ${path} does not exist`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new DestinationConfigError(`the destinations file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = DestinationsSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new DestinationConfigError(
      `the destinations file ${path}: ${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
    );
  }
  const base = dirname(path);
  return new Map(
    Object.entries(parsed.data).map(([name, config]) => [
      name,
      config.type === 'files' && !isAbsolute(config.path) ? { ...config, path: resolve(base, config.path) } : config,
    ]),
  );
}
