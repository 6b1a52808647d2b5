import type { Store } from '../data/store.js';

/** One fault of a rejected row as the quarantine holds it, with its keyset position. */
export interface RejectRow {
  quarantine_id: number;
  file: string | null;
  line: number | null;
  column_name: string | null;
  /** The file's text of the faulty field (from the row's raw fields); NULL for a fault of the whole row. */
  value: string | null;
  reason: string;
}

/**
 * A run's quarantined faults in the order they were written (file by file, line
 * by line), after the keyset `after`. They are read from the analytical store:
 * the quarantine is written in the load's transaction, and in cluster mode it
 * reaches API replicas inside the published snapshots.
 */
export async function listRejects(
  store: Store,
  runId: string,
  after: number | null,
  limit: number,
): Promise<RejectRow[]> {
  return store.all<RejectRow & Record<string, unknown>>(
    `SELECT quarantine_id, file, line, column_name,
      CASE WHEN column_name IS NOT NULL THEN raw ->> column_name END AS value, reason
    FROM quarantine WHERE run_id = ? AND (?::BIGINT IS NULL OR quarantine_id > ?)
    ORDER BY quarantine_id LIMIT ?`,
    [runId, after, after, limit],
  );
}

/** How many faults a run quarantined (a row with two faults counts twice). */
export async function countRejects(store: Store, runId: string): Promise<number> {
  return (await store.one<{ n: number }>('SELECT count(*) AS n FROM quarantine WHERE run_id = ?', [runId]))?.n ?? 0;
}
