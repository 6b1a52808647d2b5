/**
 * A schema change. Versions only ever grow; a migration never changes once released.
 * Each migration file imports this type from here, not from index.ts (which imports them).
 */
export interface Migration {
  version: number;
  name: string;
  statements: readonly string[];
}
