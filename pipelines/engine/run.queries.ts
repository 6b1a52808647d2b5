import type { SqlRunner } from '../../data/state/state-db.js';
import type { RunRecord } from './pipeline.js';

/** Writes a run's record, replacing the `running` one written when its load started. */
export async function insertRun(db: SqlRunner, r: RunRecord): Promise<void> {
  await db.run(
    `INSERT OR REPLACE INTO pipeline_runs (run_id, kind, pipeline, source, started_at, finished_at, rows_read, rows_loaded,
      rows_rejected, rows_changed, events_emitted, status, error, warnings, rows_stale)
    VALUES (?, 'pipeline', ?, ?, ?::TIMESTAMP, ?::TIMESTAMP, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [
      r.run_id,
      r.pipeline,
      r.source,
      r.started_at.replace('Z', ''),
      r.finished_at?.replace('Z', '') ?? null,
      r.rows_read,
      r.rows_loaded,
      r.rows_rejected,
      r.rows_changed,
      r.events_emitted,
      r.status,
      r.error,
      r.warnings.length ? JSON.stringify(r.warnings) : null,
      r.rows_stale,
    ],
  );
}

/** The run that loaded a file with this checksum into this pipeline, if any. */
export async function ingestedBy(db: SqlRunner, pipeline: string, checksum: string): Promise<string | null> {
  const row = await db.one<{ run_id: string }>(
    'SELECT run_id FROM ingested_files WHERE pipeline = ? AND checksum = ?',
    [pipeline, checksum],
  );
  return row?.run_id ?? null;
}

export async function recordIngestedFile(
  db: SqlRunner,
  pipeline: string,
  checksum: string,
  file: string,
  runId: string,
): Promise<void> {
  await db.run(
    `INSERT INTO ingested_files (checksum, pipeline, file, run_id, ingested_at) VALUES (?, ?, ?, ?, (now() AT TIME ZONE 'UTC'))
    ON CONFLICT DO NOTHING`,
    [checksum, pipeline, file, runId],
  );
}

export async function readCursor(db: SqlRunner, pipeline: string): Promise<string | null> {
  return (
    (
      await db.one<{ v: string | null }>('SELECT cursor_value AS v FROM pipeline_cursors WHERE pipeline = ?', [
        pipeline,
      ])
    )?.v ?? null
  );
}

export async function writeCursor(db: SqlRunner, pipeline: string, value: string | null): Promise<void> {
  await db.run(
    `INSERT INTO pipeline_cursors (pipeline, cursor_value, updated_at) VALUES (?, ?, (now() AT TIME ZONE 'UTC'))
    ON CONFLICT (pipeline) DO UPDATE SET cursor_value = excluded.cursor_value, updated_at = excluded.updated_at`,
    [pipeline, value],
  );
}

/** How many runs of this pipeline from this source failed (an inbox file is set aside after a few). */
export async function failedRunsOf(db: SqlRunner, pipeline: string, source: string): Promise<number> {
  return (
    (
      await db.one<{ n: number }>(
        `SELECT count(*) AS n FROM pipeline_runs WHERE pipeline = ? AND source = ? AND status = 'failed'`,
        [pipeline, source],
      )
    )?.n ?? 0
  );
}

/**
 * Marks failed the pipeline runs still `running`: loads into a store run one at
 * a time in the one process that owns it, so when a new load starts, any such
 * run belonged to a process that died mid-load (its transaction rolled back,
 * nothing of it was kept). Answers how many.
 */
export async function failInterruptedRuns(db: SqlRunner): Promise<number> {
  return db.run(`UPDATE pipeline_runs SET status = 'failed', finished_at = current_timestamp,
      error = 'interrupted: the process stopped before the run finished; nothing of it was loaded, run it again'
    WHERE kind = 'pipeline' AND status = 'running'`);
}
