import type pg from 'pg';
import { serviceState } from '../migrations/002-service-state.js';
import { exportLeases as duckdbExportLeases } from '../migrations/053-export-leases.js';
import { runWarnings as duckdbRunWarnings } from '../migrations/060-run-warnings.js';
import { runStaleRows as duckdbRunStaleRows } from '../migrations/065-run-stale-rows.js';
import {
  keysUsagePlans as duckdbKeysUsagePlans,
  keysUsagePlansStatements,
} from '../migrations/070-keys-usage-plans.js';
import { contactReveals as duckdbContactReveals, contactRevealsStatements } from '../migrations/101-contact-reveals.js';
import { exportMatches as duckdbExportMatches } from '../migrations/110-export-matches.js';

/** A PostgreSQL schema change; versions only grow, a released one never changes. */
interface PgMigration {
  version: number;
  name: string;
  statements: readonly string[];
}

/** Any constant works: every process agrees on it, so only one migrates at a time. */
const MIGRATION_LOCK = 7_202_611;

/**
 * DuckDB functions the shared state queries use, defined in PostgreSQL with the
 * same meaning, so one SQL text serves both engines.
 */
const duckdbCompat: PgMigration = {
  version: 1,
  name: 'duckdb compatibility functions',
  statements: [
    `CREATE FUNCTION strftime(ts timestamp, fmt text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
      SELECT CASE fmt
        WHEN '%Y-%m-%dT%H:%M:%S.%gZ' THEN to_char(ts, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
        WHEN '%Y-%m-%dT%H:%M:%SZ' THEN to_char(ts, 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
        WHEN '%Y-%m-%d' THEN to_char(ts, 'YYYY-MM-DD')
      END $$`,
    `CREATE FUNCTION epoch_us(ts timestamp) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
      SELECT (extract(epoch FROM ts) * 1000000)::bigint $$`,
    `CREATE FUNCTION epoch_ms(ts timestamp) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
      SELECT (extract(epoch FROM ts) * 1000)::bigint $$`,
    `CREATE FUNCTION list_contains(list anyarray, item anyelement) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
      SELECT item = ANY(list) $$`,
    `CREATE FUNCTION len(list anyarray) RETURNS integer LANGUAGE sql IMMUTABLE AS $$
      SELECT coalesce(cardinality(list), 0) $$`,
  ],
};

/** The embedded store's service-state tables, the same DDL with PostgreSQL's name for DOUBLE. */
const sharedState: PgMigration = {
  version: 2,
  name: serviceState.name,
  statements: serviceState.statements.map((s) => s.replace(/\bDOUBLE\b/g, 'DOUBLE PRECISION')),
};

/** Cluster bookkeeping: rate-limit cells, the writer's lease record, published snapshots. */
const clusterState: PgMigration = {
  version: 3,
  name: 'cluster state',
  statements: [
    // written on every API request and cheap to lose (a PostgreSQL crash gives keys a fresh allowance): no WAL
    `CREATE UNLOGGED TABLE rate_limits (
      bucket VARCHAR NOT NULL PRIMARY KEY,
      tat_us BIGINT NOT NULL
    )`,
    `CREATE TABLE snapshots (
      version BIGINT NOT NULL PRIMARY KEY,
      file VARCHAR NOT NULL,
      data_version VARCHAR NOT NULL,
      data_as_of TIMESTAMP,
      bytes BIGINT NOT NULL,
      publish_ms DOUBLE PRECISION NOT NULL,
      published_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
      published_by VARCHAR NOT NULL
    )`,
    `CREATE TABLE snapshot_readers (
      reader VARCHAR NOT NULL PRIMARY KEY,
      version BIGINT NOT NULL,
      seen_at TIMESTAMP NOT NULL
    )`,
    `CREATE TABLE cluster_members (
      member VARCHAR NOT NULL PRIMARY KEY,
      roles VARCHAR NOT NULL,
      url VARCHAR,
      active_writer BOOLEAN NOT NULL DEFAULT false,
      started_at TIMESTAMP NOT NULL,
      seen_at TIMESTAMP NOT NULL
    )`,
    `CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status IN ('pending', 'sending')`,
    `CREATE INDEX deliveries_webhook ON deliveries (webhook_id, created_at)`,
    `CREATE INDEX events_unfanned ON events (seq) WHERE fanned_out_at IS NULL`,
    `CREATE INDEX list_members_creator ON list_members (creator_id)`,
    `CREATE INDEX exports_queue ON exports (status, created_at)`,
  ],
};

/**
 * List member pages in keyset order straight off an index: the page query
 * orders and seeks on `(epoch_us(added_at), creator_id)`, which PostgreSQL can
 * only read in order from an index on that expression (without it every page of
 * a 100,000-member list scans and sorts the whole list).
 */
const listMembersKeyset: PgMigration = {
  version: 10,
  name: 'list members keyset index',
  statements: ['CREATE INDEX list_members_keyset ON list_members (list_id, epoch_us(added_at), creator_id)'],
};

/** An embedded-store migration whose statements PostgreSQL runs unchanged, under a version of this list. */
function sameAsEmbedded(version: number, migration: { name: string; statements: readonly string[] }): PgMigration {
  return { version, name: migration.name, statements: migration.statements };
}

/** Export attempts and their leases (the same columns as the embedded store's migration 53). */
const exportLeases = sameAsEmbedded(30, duckdbExportLeases);

/** Run warnings (the same column as the embedded store's migration 60), relayed with the run records. */
const runWarnings = sameAsEmbedded(40, duckdbRunWarnings);

/** Stale rows per run (the same column as the embedded store's migration 65), relayed with the run records. */
const runStaleRows = sameAsEmbedded(45, duckdbRunStaleRows);

/** Self-service keys, API usage and plans (the embedded store's migration 70, with PostgreSQL's `array_append`). */
const keysUsagePlans: PgMigration = {
  version: 70,
  name: duckdbKeysUsagePlans.name,
  statements: keysUsagePlansStatements('array_append'),
};

/** The enterprise plan's contacts:read scope and the reveals audit log (the embedded store's migration 101, with `array_append`). */
const contactReveals: PgMigration = {
  version: 101,
  name: duckdbContactReveals.name,
  statements: contactRevealsStatements('array_append'),
};

/** A lookalikes export's ranked matches (the same table as the embedded store's migration 110). */
const exportMatches = sameAsEmbedded(110, duckdbExportMatches);

const PG_MIGRATIONS: readonly PgMigration[] = [
  duckdbCompat,
  sharedState,
  clusterState,
  listMembersKeyset,
  exportLeases,
  runWarnings,
  runStaleRows,
  keysUsagePlans,
  contactReveals,
  exportMatches,
];

/**
 * Applies pending migrations, each in its own transaction with its record. The
 * whole run holds a session advisory lock, so whichever process starts first
 * migrates and the others wait and then find nothing to do.
 */
export async function runPgMigrations(pool: pg.Pool): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)`);
    const done = new Set(
      (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    );
    const applied: number[] = [];
    for (const migration of PG_MIGRATIONS) {
      if (done.has(migration.version)) continue;
      await applyOne(client, migration);
      applied.push(migration.version);
    }
    return applied;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    client.release();
  }
}

async function applyOne(client: pg.PoolClient, migration: PgMigration): Promise<void> {
  try {
    await client.query('BEGIN');
    for (const sql of migration.statements) await client.query(sql);
    await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
      migration.version,
      migration.name,
    ]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw new Error(
      `PostgreSQL migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`,
    );
  }
}
