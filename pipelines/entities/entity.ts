/** The source entities that pipelines load (their columns and rules: docs/data-formats.md). */
export const ENTITY_NAMES = [
  'creators',
  'follower_history',
  'posts',
  'creator_contacts',
  'linked_accounts',
  'audience',
  'campaigns',
  'campaign_creators',
  'campaign_metrics',
  'follower_samples',
] as const;
export type EntityName = (typeof ENTITY_NAMES)[number];

/** How a column's text is typed; each maps to a DuckDB type that `TRY_CAST` targets. */
export type ColumnType = 'text' | 'bigint' | 'integer' | 'double' | 'boolean' | 'timestamp' | 'date';

export const SQL_TYPES: Readonly<Record<ColumnType, string>> = {
  text: 'VARCHAR',
  bigint: 'BIGINT',
  integer: 'INTEGER',
  double: 'DOUBLE',
  boolean: 'BOOLEAN',
  timestamp: 'TIMESTAMP',
  date: 'DATE',
};

/**
 * One column of a source file. `normalise` rewrites the typed value (lower-casing
 * a platform, adding a handle's `@`); `check` answers an SQL expression that is a
 * reason text when the (normalised) value `v` is not acceptable, else NULL.
 */
export interface ColumnSpec {
  name: string;
  type: ColumnType;
  required?: boolean;
  normalise?: (v: string) => string;
  check?: (v: string) => string;
  /** Text that runs long (a bio, a caption): its surrounding blanks are looked for at both ends before trimming (validate.ts). */
  prose?: boolean;
}

/** Write disposition (dlt's terms): merge on the key, append if absent, replace the key's slice. */
export type WriteDisposition = 'merge' | 'append' | 'replace';

/** A source entity: its columns, its natural key and how it is written. */
export interface EntitySpec {
  name: EntityName;
  columns: readonly ColumnSpec[];
  /** Natural key in the file (platform + handle stand for the creator). */
  key: readonly string[];
  disposition: WriteDisposition;
  /** Column whose larger value wins among duplicates and against the store (older never overwrites newer). */
  versionColumn?: string;
  /** Whether rows name a creator by (platform, handle) that must exist. */
  refersToCreator: boolean;
}

/**
 * The columns a merge writes besides the key, in declaration order: every
 * declared column not in the natural key (platform and handle become the
 * creator_id the merge keys on). Merges take their column lists from here, so
 * a column added to an entity is written without a second list to update.
 */
export function valueColumns(spec: EntitySpec): string[] {
  return spec.columns.map((c) => c.name).filter((name) => !spec.key.includes(name));
}

/** Picks the entity a file is for from its name: `creators-2026.csv`, `campaign-metrics.parquet`. */
export function entityForFile(fileName: string): EntityName | null {
  const base = fileName.toLowerCase().replaceAll('-', '_');
  const matches = ENTITY_NAMES.filter((e) => base.startsWith(e) && !/[a-z]/.test(base.charAt(e.length)));
  return [...matches].sort((a, b) => b.length - a.length)[0] ?? null;
}
