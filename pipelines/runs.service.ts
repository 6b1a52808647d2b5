import { NotFoundError } from '../data/errors.js';
import type { Store } from '../data/store.js';
import type { RunRecord, RunStatus } from './engine/pipeline.js';
import { getRun, listRuns } from './engine/run.queries.js';

export interface RunsQuery {
  pipeline?: string | null;
  status?: RunStatus | null;
  limit: number;
  /** Answer runs older than this run id (keyset; run ids sort by start time). */
  before?: string | null;
}

/** A page of runs, newest first, and the id to continue from (null on the last page). */
export async function listRunsPage(store: Store, q: RunsQuery): Promise<{ runs: RunRecord[]; nextBefore: string | null }> {
  const rows = await listRuns(store, { ...q, limit: q.limit + 1 });
  const runs = rows.slice(0, q.limit);
  return { runs, nextBefore: rows.length > q.limit ? (runs.at(-1)?.run_id ?? null) : null };
}

/** One run by id; a `NotFoundError` when there is none. */
export async function getRunById(store: Store, runId: string): Promise<RunRecord> {
  const run = await getRun(store, runId);
  if (!run) throw new NotFoundError(`no run ${runId}`);
  return run;
}
