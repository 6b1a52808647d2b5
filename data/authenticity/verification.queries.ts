import {
  BIGINT,
  DOUBLE,
  INTEGER,
  VARCHAR,
  type DuckDBConnection,
  type DuckDBPreparedStatement,
  type DuckDBType,
} from '@duckdb/node-api';
import type { StateQueryable } from '../state/state-db.js';
import { normaliseRow, type SqlValue, type Store } from '../store.js';
import { FEATURE_COLUMNS, featuresSelectSql } from './features.queries.js';
import { PEER_SIGNALS } from './model.js';
import { peerKeyOf } from './peer-stats.queries.js';
import { PEER_COLUMNS, scoringSelectSql } from './scoring.queries.js';
import type { TrainedModel } from './trained-model.js';

interface PeerRow extends Record<string, unknown> {
  metric: string;
  median: number;
  mad: number;
  n: number;
  basis: string;
}

/** A one-row relation of bound `$column` parameters with the given SQL types. */
function boundRowSql(columns: Readonly<Record<string, string>>): string {
  return `(SELECT ${Object.entries(columns)
    .map(([c, t]) => `$${c}::${t} AS ${c}`)
    .join(', ')})`;
}

/**
 * Features and score of one creator from current data, against the stored peer
 * statistics: the same SQL as the precompute, narrowed to one id (the child
 * tables are stored in creator order, so zone maps keep this a small read),
 * then scored with its peers' statistics as a one-row relation of bound values
 * (no joins: a check stays a few small reads).
 */
export async function scoreCreator(
  store: Store,
  creatorId: number,
  model: TrainedModel,
): Promise<Record<string, unknown> | undefined> {
  const features = await preparedOne(store, FEATURES_ONE_SQL, { id: creatorId }, { id: INTEGER });
  if (!features) return undefined;
  const params: Record<string, SqlValue> = {};
  for (const column of Object.keys(FEATURE_COLUMNS)) params[column] = (features[column] ?? null) as SqlValue;
  const keys = PEER_SIGNALS.map((s) => peerKeyOf(s, features));
  const peers = await store.all<PeerRow>(
    `SELECT metric, median, mad, n, basis FROM authenticity_peer_stats
    WHERE list_contains(?::VARCHAR[], metric || chr(31) || peer_key)`,
    [PEER_SIGNALS.map((s, i) => `${s.metric}\u001f${keys[i] ?? ''}`)],
  );
  PEER_SIGNALS.forEach((s, i) => {
    const p = keys[i] === null ? undefined : peers.find((r) => r.metric === s.metric);
    params[`peer_median_${i}`] = p?.median ?? null;
    params[`peer_mad_${i}`] = p?.mad ?? null;
    params[`peer_n_${i}`] = p?.n ?? null;
    params[`peer_basis_${i}`] = p?.basis ?? null;
  });
  return preparedOne(store, scoreOneSql(model), params, SCORE_ONE_TYPES);
}

const FEATURES_ONE_SQL = featuresSelectSql((column) => `${column} = $id`);
const SCORE_COLUMNS: Readonly<Record<string, string>> = { ...FEATURE_COLUMNS, ...PEER_COLUMNS };
const scoreOneCache = new Map<TrainedModel, string>();

/** The one-creator scoring statement of a model (its text carries the coefficients; kept per model object). */
function scoreOneSql(model: TrainedModel): string {
  let sql = scoreOneCache.get(model);
  if (!sql) scoreOneCache.set(model, (sql = scoringSelectSql(boundRowSql(SCORE_COLUMNS), model)));
  return sql;
}
const DUCK_TYPES: Readonly<Record<string, DuckDBType>> = { BIGINT, DOUBLE, INTEGER, VARCHAR };
const SCORE_ONE_TYPES = Object.fromEntries(
  Object.entries(SCORE_COLUMNS).map(([c, t]) => [c, DUCK_TYPES[t] ?? VARCHAR]),
);

/**
 * Both statements prepared once per pooled connection: planning these wide
 * statements costs more than running them for one creator (measured ~40 % of a check).
 */
const prepared = new WeakMap<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();

async function preparedOne(
  store: Store,
  sql: string,
  values: Record<string, SqlValue>,
  types: Record<string, DuckDBType>,
): Promise<Record<string, unknown> | undefined> {
  return store.withConnection(async (connection) => {
    let cache = prepared.get(connection);
    if (!cache) prepared.set(connection, (cache = new Map()));
    let statement = cache.get(sql);
    if (!statement) cache.set(sql, (statement = await connection.prepare(sql)));
    statement.bind(values as Record<string, string | number | null>, types);
    const row = (await statement.runAndReadUntil(1)).getRowObjectsJS()[0];
    return row ? normaliseRow(row) : undefined;
  });
}

export interface VerificationRecord {
  verification_id: string;
  account_id: string;
  creator_id: number;
  platform: string;
  handle: string;
  authenticity_score: number;
  verdict: string;
  model_version: string;
  /** The whole response body, as JSON text. */
  result: string;
  /** ISO 8601 UTC. */
  checked_at: string;
}

/** Stores a verification in the service state (the scores it was computed from are in the store). */
export async function insertVerification(state: StateQueryable, r: VerificationRecord): Promise<void> {
  await state.run(
    `INSERT INTO verifications (verification_id, account_id, creator_id, platform, handle, authenticity_score,
      verdict, model_version, result, checked_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?::JSON, ?::TIMESTAMP)`,
    [
      r.verification_id,
      r.account_id,
      r.creator_id,
      r.platform,
      r.handle,
      r.authenticity_score,
      r.verdict,
      r.model_version,
      r.result,
      r.checked_at,
    ],
  );
}

/** The stored response body of one of the account's verifications. */
export async function selectVerification(
  state: StateQueryable,
  accountId: string,
  id: string,
): Promise<string | undefined> {
  const row = await state.one<{ result: string }>(
    'SELECT result::VARCHAR AS result FROM verifications WHERE verification_id = ? AND account_id = ?',
    [id, accountId],
  );
  return row?.result;
}

export interface VerificationFilter {
  handle: string | null;
  platform: string | null;
  /** Keyset: only ids before this one (ids sort by creation time). */
  before: string | null;
  limit: number;
}

/** The account's verifications, newest first, keyset-paged on the id. */
export async function listVerifications(
  state: StateQueryable,
  accountId: string,
  f: VerificationFilter,
): Promise<Array<{ id: string; result: string }>> {
  return state.all<{ id: string; result: string }>(
    `SELECT verification_id AS id, result::VARCHAR AS result FROM verifications
    WHERE account_id = ? AND (?::VARCHAR IS NULL OR handle = ?) AND (?::VARCHAR IS NULL OR platform = ?)
      AND (?::VARCHAR IS NULL OR verification_id < ?)
    ORDER BY verification_id DESC LIMIT ?`,
    [accountId, f.handle, f.handle, f.platform, f.platform, f.before, f.before, f.limit],
  );
}
