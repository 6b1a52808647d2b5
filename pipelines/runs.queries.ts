import type { StateQueryable } from '../data/state/state-db.js';
import type { RunRecord } from './engine/pipeline.js';
import { timestampSql } from '../data/timestamps.js';

/**
 * Reads of the run records the API lists. They go to the service state: in the
 * embedded default that is the store the runner writes, in cluster mode the
 * PostgreSQL mirror the writer's outbox relay keeps (`relayOutbox`). The same
 * text serves both (`strftime` is a compatibility function in PostgreSQL).
 */
const RUN_COLUMNS = `run_id, pipeline, source, status, ${timestampSql('started_at')} AS started_at,
  ${timestampSql('finished_at')} AS finished_at, rows_read, rows_loaded, rows_rejected, rows_changed,
  coalesce(rows_stale, 0) AS rows_stale, events_emitted, error, warnings`;

/** A `pipeline_runs` row as read by RUN_COLUMNS: `warnings` is JSON text or NULL. */
type RunRow = Omit<RunRecord, 'warnings'> & { warnings: string | null } & Record<string, unknown>;

/** A run row in the API's shape: the warnings as a list, empty when there were none. */
function toRunRecord({ warnings, ...row }: RunRow): RunRecord {
  return { ...row, warnings: warnings ? (JSON.parse(warnings) as string[]) : [] };
}

export interface RunFilter {
  pipeline?: string | null;
  status?: string | null;
  limit: number;
  /** Runs started strictly before this run (keyset paging on run_id, which sorts by time). */
  before?: string | null;
}

/** Pipeline runs, newest first. */
export async function listRuns(db: StateQueryable, f: RunFilter): Promise<RunRecord[]> {
  const rows = await db.all<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM pipeline_runs
    WHERE kind = 'pipeline' AND (?::VARCHAR IS NULL OR pipeline = ?) AND (?::VARCHAR IS NULL OR status = ?)
      AND (?::VARCHAR IS NULL OR run_id < ?)
    ORDER BY run_id DESC LIMIT ?`,
    [
      f.pipeline ?? null,
      f.pipeline ?? null,
      f.status ?? null,
      f.status ?? null,
      f.before ?? null,
      f.before ?? null,
      f.limit,
    ],
  );
  return rows.map(toRunRecord);
}

/** One run record by id. */
export async function getRun(db: StateQueryable, runId: string): Promise<RunRecord | undefined> {
  const row = await db.one<RunRow>(`SELECT ${RUN_COLUMNS} FROM pipeline_runs WHERE run_id = ?`, [runId]);
  return row && toRunRecord(row);
}
