import { NotFoundError } from '../data/errors.js';
import type { StateDb } from '../data/state/state-db.js';
import type { RunRecord, RunStatus } from './engine/pipeline.js';
import { getRun, listRuns } from './runs.queries.js';

export interface RunsQuery {
  pipeline?: string | null;
  status?: RunStatus | null;
  limit: number;
  /** Answer runs older than this run id (keyset; run ids sort by start time). */
  before?: string | null;
}

/**
 * A page of runs, newest first, and the id to continue from (null on the last
 * page). Read from the service state: the relay's mirror in cluster mode.
 */
export async function listRunsPage(state: StateDb, q: RunsQuery): Promise<{ runs: RunRecord[]; nextBefore: string | null }> {
  const rows = await listRuns(state, { ...q, limit: q.limit + 1 });
  const runs = rows.slice(0, q.limit);
  return { runs, nextBefore: rows.length > q.limit ? (runs.at(-1)?.run_id ?? null) : null };
}

/** One run by id; a `NotFoundError` when there is none. */
export async function getRunById(state: StateDb, runId: string): Promise<RunRecord> {
  const run = await getRun(state, runId);
  if (!run) throw new NotFoundError(`no run ${runId}`);
  return run;
}
