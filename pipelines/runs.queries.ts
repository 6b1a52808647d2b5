import type { StateQueryable } from '../data/state/state-db.js';
import type { RunRecord } from './engine/pipeline.js';

/**
 * Reads of the run records the API lists. They go to the service state: in the
 * embedded default that is the store the runner writes, in cluster mode the
 * PostgreSQL mirror the writer's outbox relay keeps (`relayOutbox`). The same
 * text serves both (`strftime` is a compatibility function in PostgreSQL).
 */
const RUN_COLUMNS = `run_id, pipeline, source, status, strftime(started_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS started_at,
  strftime(finished_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS finished_at, rows_read, rows_loaded, rows_rejected, rows_changed, events_emitted, error`;

export interface RunFilter {
  pipeline?: string | null;
  status?: string | null;
  limit: number;
  /** Runs started strictly before this run (keyset paging on run_id, which sorts by time). */
  before?: string | null;
}

/** Pipeline runs, newest first. */
export async function listRuns(db: StateQueryable, f: RunFilter): Promise<RunRecord[]> {
  return db.all<RunRecord & Record<string, unknown>>(`SELECT ${RUN_COLUMNS} FROM pipeline_runs
    WHERE kind = 'pipeline' AND (?::VARCHAR IS NULL OR pipeline = ?) AND (?::VARCHAR IS NULL OR status = ?)
      AND (?::VARCHAR IS NULL OR run_id < ?)
    ORDER BY run_id DESC LIMIT ?`,
  [f.pipeline ?? null, f.pipeline ?? null, f.status ?? null, f.status ?? null, f.before ?? null, f.before ?? null, f.limit]);
}

/** One run record by id. */
export async function getRun(db: StateQueryable, runId: string): Promise<RunRecord | undefined> {
  return db.one<RunRecord & Record<string, unknown>>(`SELECT ${RUN_COLUMNS} FROM pipeline_runs WHERE run_id = ?`, [runId]);
}
