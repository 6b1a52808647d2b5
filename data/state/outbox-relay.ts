import type { Store } from '../store.js';
import type { StateDb } from './state-db.js';

const EVENT_BATCH = 5_000;
/** Run records are re-sent this far behind the newest one copied (a run that finished late is not missed). */
const RUN_OVERLAP_MS = 10 * 60_000;

interface RelayedEvent extends Record<string, unknown> {
  seq: number;
  event_id: string;
  type: string;
  account_id: string | null;
  creator_id: number | null;
  campaign_id: string | null;
  payload: string;
  created_at: string;
}

/** What one relay pass copied. */
export interface RelayResult {
  events: number;
  runs: number;
}

/**
 * The transactional-outbox relay of cluster mode. Pipelines write change events
 * and run records in the same DuckDB transaction as the data; this copies them
 * into PostgreSQL, where webhook workers fan them out and API replicas list runs.
 * PostgreSQL commits first, then the position here: a writer that dies between
 * the two copies the same events again, and `ON CONFLICT (event_id) DO NOTHING`
 * drops the repeats, so nothing is lost and nothing doubled. The caller runs it
 * in line with the loads (`serialiseLoad`), so event seq order is commit order.
 */
export async function relayOutbox(store: Store, state: StateDb): Promise<RelayResult> {
  // embedded default: the state is the store itself, its events table is the outbox the fan-out reads
  if (state.dialect === 'duckdb') return { events: 0, runs: 0 };
  let events = 0;
  for (;;) {
    const copied = await relayEventBatch(store, state);
    events += copied;
    if (copied < EVENT_BATCH) break;
  }
  return { events, runs: await relayRuns(store, state) };
}

async function relayEventBatch(store: Store, state: StateDb): Promise<number> {
  const after = await position(store, 'events');
  const rows = await store.all<RelayedEvent>(
    `SELECT seq, event_id, type, account_id, creator_id, campaign_id,
      CAST(payload AS VARCHAR) AS payload, strftime(created_at, '%Y-%m-%dT%H:%M:%S.%f') AS created_at
    FROM events WHERE seq > ? ORDER BY seq LIMIT ?`,
    [after, EVENT_BATCH],
  );
  if (rows.length === 0) return 0;
  await state.run(
    `INSERT INTO events (event_id, type, account_id, creator_id, campaign_id, payload, created_at)
    SELECT r.event_id, r.type, r.account_id, r.creator_id, r.campaign_id, r.payload::JSON, r.created_at::TIMESTAMP
    FROM json_to_recordset(?::JSON) AS r(event_id VARCHAR, type VARCHAR, account_id VARCHAR, creator_id INTEGER,
      campaign_id VARCHAR, payload TEXT, created_at VARCHAR)
    ON CONFLICT (event_id) DO NOTHING`,
    [JSON.stringify(rows.map(({ seq: _seq, ...r }) => r))],
  );
  await setPosition(store, 'events', rows.at(-1)!.seq);
  return rows.length;
}

const RUN_COLUMNS = [
  'run_id',
  'kind',
  'pipeline',
  'source',
  'started_at',
  'finished_at',
  'rows_read',
  'rows_loaded',
  'rows_rejected',
  'rows_changed',
  'events_emitted',
  'status',
  'error',
  'warnings',
  'rows_stale',
] as const;

/** Upserts the run records started or finished since the last pass (and every one still running). */
async function relayRuns(store: Store, state: StateDb): Promise<number> {
  const after = await position(store, 'pipeline_runs');
  const rows = await store.all<Record<string, unknown> & { touched_ms: number }>(
    `SELECT ${RUN_COLUMNS.join(', ')},
      epoch_ms(coalesce(finished_at, started_at)) AS touched_ms
    FROM pipeline_runs WHERE status = 'running' OR epoch_ms(coalesce(finished_at, started_at)) >= ?`,
    [after - RUN_OVERLAP_MS],
  );
  if (rows.length === 0) return 0;
  const records = rows.map(({ touched_ms: _t, ...r }) => ({
    ...r,
    started_at: isoNaive(r['started_at']),
    finished_at: r['finished_at'] ? isoNaive(r['finished_at']) : null,
  }));
  const columns = RUN_COLUMNS.join(', ');
  await state.run(
    `INSERT INTO pipeline_runs (${columns})
    SELECT ${columns} FROM json_to_recordset(?::JSON) AS r(run_id VARCHAR, kind VARCHAR, pipeline VARCHAR, source VARCHAR,
      started_at TIMESTAMP, finished_at TIMESTAMP, rows_read BIGINT, rows_loaded BIGINT, rows_rejected BIGINT,
      rows_changed BIGINT, events_emitted BIGINT, status VARCHAR, error VARCHAR, warnings VARCHAR, rows_stale BIGINT)
    ON CONFLICT (run_id) DO UPDATE SET ${RUN_COLUMNS.filter((c) => c !== 'run_id')
      .map((c) => `${c} = excluded.${c}`)
      .join(', ')}`,
    [JSON.stringify(records)],
  );
  const newest = Math.max(...rows.map((r) => r.touched_ms));
  if (newest > after) await setPosition(store, 'pipeline_runs', newest);
  return rows.length;
}

/** A DuckDB TIMESTAMP (read back as a Date in UTC) as naive ISO text, for a TIMESTAMP column. */
function isoNaive(value: unknown): string {
  return (value instanceof Date ? value : new Date(String(value))).toISOString().replace('Z', '');
}

/**
 * Deletes the writer's copies of events already relayed and older than the
 * retention period (PostgreSQL's outbox has its own prune). Answers rows deleted.
 */
export async function pruneRelayedEvents(store: Store, before: Date): Promise<number> {
  const relayed = await position(store, 'events');
  return store.run('DELETE FROM events WHERE seq <= ? AND created_at < ?::TIMESTAMP', [relayed, before.toISOString()]);
}

async function position(store: Store, stream: string): Promise<number> {
  return (
    (await store.one<{ position: number }>('SELECT position FROM outbox_relay WHERE stream = ?', [stream]))?.position ??
    0
  );
}

async function setPosition(store: Store, stream: string, value: number): Promise<void> {
  await store.run(
    `INSERT INTO outbox_relay (stream, position, updated_at) VALUES (?, ?, current_timestamp)
    ON CONFLICT (stream) DO UPDATE SET position = excluded.position, updated_at = excluded.updated_at`,
    [stream, value],
  );
}

/**
 * Copies the accounts from PostgreSQL into the writer's store, where loads check
 * campaign rows against them (set-based, inside DuckDB). Accounts are few, so a
 * whole read each pass is cheaper than tracking changes; the store is written
 * only when they differ from `previous` (what the last pass answered). Answers
 * the accounts as read, for the next pass.
 */
export async function mirrorAccounts(
  state: StateDb,
  store: Store,
  previous: string | null = null,
): Promise<string | null> {
  if (state.dialect === 'duckdb') return null;
  const rows = await state.all<{ account_id: string; name: string; plan: string; created_at: Date }>(
    'SELECT account_id, name, plan, created_at FROM accounts ORDER BY account_id',
  );
  const json = JSON.stringify(rows.map((r) => ({ ...r, created_at: isoNaive(r.created_at) })));
  if (json === previous) return json;
  await store.transaction(async (tx) => {
    await tx.run(
      `INSERT INTO accounts (account_id, name, plan, created_at)
      SELECT r.account_id, r.name, r.plan, CAST(r.created_at AS TIMESTAMP)
      FROM (SELECT unnest(from_json(?::VARCHAR, '[{"account_id":"VARCHAR","name":"VARCHAR","plan":"VARCHAR","created_at":"VARCHAR"}]'), recursive := true)) r
      WHERE NOT EXISTS (SELECT 1 FROM accounts a WHERE a.account_id = r.account_id)`,
      [json],
    );
    await tx.run(
      `UPDATE accounts SET plan = r.plan, name = r.name
      FROM (SELECT unnest(from_json(?::VARCHAR, '[{"account_id":"VARCHAR","name":"VARCHAR","plan":"VARCHAR"}]'), recursive := true)) r
      WHERE accounts.account_id = r.account_id AND (accounts.plan <> r.plan OR accounts.name <> r.name)`,
      [json],
    );
  });
  return json;
}
