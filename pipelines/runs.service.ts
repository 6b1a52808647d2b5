import { NotFoundError } from '../data/errors.js';
import { takePage, type KeyedPage } from '../data/paging.js';
import type { StateDb } from '../data/state/state-db.js';
import type { Store } from '../data/store.js';
import type { PipelineOutcome, RunRecord, RunStatus } from './engine/pipeline.js';
import { countRejects, listRejects, type RejectRow } from './rejects.queries.js';
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
export async function listRunsPage(state: StateDb, q: RunsQuery): Promise<KeyedPage<RunRecord, [string]>> {
  return takePage(await listRuns(state, { ...q, limit: q.limit + 1 }), q.limit, (run) => [run.run_id]);
}

/** One run by id; a `NotFoundError` when there is none. */
export async function getRunById(state: StateDb, runId: string): Promise<RunRecord> {
  const run = await getRun(state, runId);
  if (!run) throw new NotFoundError(`no run ${runId}`);
  return run;
}

/** One fault of a rejected row, in the API's shape. */
export interface RunReject {
  file: string | null;
  line: number | null;
  column: string | null;
  value: string | null;
  reason: string;
}

function toRunReject(row: RejectRow): RunReject {
  return { file: row.file, line: row.line, column: row.column_name, value: row.value, reason: row.reason };
}

/**
 * A page of a run's rejected-row faults, every fault of a row on its own, and the
 * keyset to continue from (null on the last page). A `NotFoundError` for a run
 * the state does not know. The run is read from the state, its faults from the
 * analytical store (a snapshot on a cluster replica).
 */
export async function listRunRejectsPage(
  state: StateDb,
  store: Store,
  runId: string,
  q: { limit: number; after: number | null },
): Promise<KeyedPage<RunReject, [number]>> {
  await getRunById(state, runId);
  return takePage(
    await listRejects(store, runId, q.after, q.limit + 1),
    q.limit,
    (row) => [row.quarantine_id],
    toRunReject,
  );
}

/** A run and its first `limit` faults (every one when `limit` is null), with how many there are: `cds runs show`. */
export async function showRun(
  state: StateDb,
  store: Store,
  runId: string,
  limit: number | null,
): Promise<{ run: RunRecord; rejects: RunReject[]; rejects_total: number }> {
  const run = await getRunById(state, runId);
  const total = await countRejects(store, runId);
  const rows = await listRejects(store, runId, null, limit ?? total);
  return { run, rejects: rows.map(toRunReject), rejects_total: total };
}

/** A run as `cds ingest` reports it: with its first few faults, so a partly rejected file says why at once. */
export type ReportedRun = RunRecord & { first_rejects: RunReject[] };

/** Adds each run's first `n` faults (none for a run that rejected nothing) to the outcomes of a load. */
export async function withFirstRejects(
  store: Store,
  outcomes: readonly PipelineOutcome[],
  n = 5,
): Promise<Array<Omit<PipelineOutcome, 'runs'> & { runs: ReportedRun[] }>> {
  return Promise.all(
    outcomes.map(async (o) => ({
      ...o,
      runs: await Promise.all(
        o.runs.map(async (r) => ({
          ...r,
          first_rejects: r.rows_rejected > 0 ? (await listRejects(store, r.run_id, null, n)).map(toRunReject) : [],
        })),
      ),
    })),
  );
}
