import pg from 'pg';
import { quoteIdent } from '../../data/sql.js';
import type { Store } from '../../data/store.js';
import type { PushProgress, PushResult, SyncBatch } from '../warehouse/destination.js';
import { TerminalError } from '../warehouse/errors.js';
import { batchQuery, type SyncColumn, type SyncTableSpec } from '../warehouse/tables.js';
import type { PostgresDestinationConfig } from './config.js';
import { copyBatch } from './csv-parts.js';
import {
  COLUMNS_SQL,
  PRIMARY_KEY_SQL,
  copySql,
  createStageSql,
  createStateTableSql,
  createTableSql,
  deleteMissingSql,
  deleteReplacedSql,
  pgType,
  qualified,
  upsertSql,
  upsertStateSql,
} from './postgres.queries.js';

/** Opens one connection; a socket failure surfaces through the query in flight, never as an unhandled event. */
export async function connect(config: PostgresDestinationConfig): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: config.url,
    connectionTimeoutMillis: config.connect_timeout_ms,
    application_name: 'cds-sync',
    keepAlive: true,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await close(client);
    throw error;
  }
  return client;
}

/** Ends a connection without waiting on a dead socket. */
export async function close(client: pg.Client): Promise<void> {
  await Promise.race([client.end().catch(() => undefined), new Promise((r) => setTimeout(r, 1000).unref())]);
}

/** Reachable, authenticated, and allowed to create the schema (tried and rolled back). */
export async function testPostgres(config: PostgresDestinationConfig): Promise<void> {
  const client = await connect(config);
  try {
    await client.query('BEGIN');
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(config.schema)}`);
    await client.query('ROLLBACK');
  } finally {
    await close(client);
  }
}

/**
 * Pushes one batch in ONE PostgreSQL transaction: the table is created or
 * checked, DuckDB streams the rows as CSV into COPY FROM STDIN — straight into
 * an empty table, else into a staging table followed by one set-based upsert —
 * the table's row in `_cds_sync_state` (watermark, run) is written beside it,
 * and the transaction commits. Any failure rolls the whole table back.
 */
export async function pushPostgres(
  config: PostgresDestinationConfig,
  store: Store,
  batch: SyncBatch,
  progress: PushProgress,
): Promise<PushResult> {
  const client = await connect(config);
  try {
    await client.query('BEGIN');
    const added = await ensureTable(client, config.schema, batch.table, batch.columns);
    const send = added.length > 0 ? backfill(batch) : batch;
    const total =
      (await store.one<{ n: number }>(`SELECT count(*) AS n FROM (${send.query.sql})`, send.query.params))?.n ?? 0;
    await progress(0, total);
    const result = await loadTable(
      client,
      config.schema,
      send,
      (sql) => () => copyBatch(store, client, sql, send, total, config.copy_part_rows, progress),
    );
    await client.query(createStateTableSql(config.schema));
    await client.query(upsertStateSql(config.schema), [
      batch.table.name,
      batch.watermark.to,
      batch.runId,
      result.rowsChanged,
    ]);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await close(client);
  }
}

/**
 * A table that just gained columns is sent whole, up to this run's watermark,
 * once: rows synced before the columns existed get their values by the upsert
 * (only the rows that differ are written), not only the rows changed since.
 */
function backfill(batch: SyncBatch): SyncBatch {
  if (!batch.table.cursor || batch.watermark.from === null) return batch;
  return { ...batch, query: batchQuery(batch.table, batch.columns, null, batch.watermark.to) };
}

async function loadTable(
  client: pg.Client,
  schema: string,
  batch: SyncBatch,
  copy: (copySql: string) => () => Promise<number>,
): Promise<PushResult> {
  const spec = batch.table;
  const target = qualified(schema, spec.name);
  // One sync at a time per table, whichever process runs it; readers carry on.
  await client.query(`LOCK TABLE ${target} IN SHARE ROW EXCLUSIVE MODE`);
  const empty = (await client.query<{ empty: boolean }>(`SELECT NOT EXISTS (SELECT 1 FROM ${target}) AS empty`)).rows[0]
    ?.empty;
  if (empty) {
    const loaded = await bulkLoad(client, schema, spec, copy(copySql(target, batch.columns, { freeze: true })));
    return { rowsRead: loaded, rowsLoaded: loaded, rowsChanged: loaded };
  }
  const stage = `_cds_stage_${spec.name}`;
  await client.query(createStageSql(schema, spec, stage));
  const loaded = await copy(copySql(quoteIdent(stage), batch.columns))();
  let changed = (await client.query(upsertSql(schema, spec, batch.columns, stage))).rowCount ?? 0;
  if (!spec.cursor) changed += (await client.query(deleteMissingSql(schema, spec, stage))).rowCount ?? 0;
  if (spec.replaceGroup)
    changed += (await client.query(deleteReplacedSql(schema, spec, spec.replaceGroup, stage))).rowCount ?? 0;
  return { rowsRead: loaded, rowsLoaded: loaded, rowsChanged: changed };
}

/**
 * The first load of a table, the way PostgreSQL's manual advises: the (empty)
 * table is truncated so COPY can FREEZE its rows (no later vacuum rewrite),
 * the primary key is dropped and built once afterwards by a sort, far cheaper
 * than a million btree inserts. All inside the table's transaction; readers
 * wait for the commit rather than see a table without its key.
 */
async function bulkLoad(
  client: pg.Client,
  schema: string,
  spec: SyncTableSpec,
  load: () => Promise<number>,
): Promise<number> {
  const target = qualified(schema, spec.name);
  await client.query(`TRUNCATE ${target}`);
  const pk = (await client.query<{ name: string }>(PRIMARY_KEY_SQL, [target])).rows[0]?.name;
  if (pk) await client.query(`ALTER TABLE ${target} DROP CONSTRAINT ${quoteIdent(pk)}`);
  const loaded = await load();
  await client.query(
    `ALTER TABLE ${target} ADD ${pk ? `CONSTRAINT ${quoteIdent(pk)} ` : ''}PRIMARY KEY (${spec.key.map(quoteIdent).join(', ')})`,
  );
  return loaded;
}

/**
 * Creates the schema and table when missing; adds columns the store gained
 * since (additive evolution) and answers their names (none for a table just
 * created); a column whose type differs is a terminal schema mismatch — the
 * destination is never rewritten behind its users' backs.
 */
async function ensureTable(
  client: pg.Client,
  schema: string,
  spec: SyncTableSpec,
  columns: readonly SyncColumn[],
): Promise<string[]> {
  await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
  await client.query(createTableSql(schema, spec, columns));
  const existing = new Map(
    (await client.query<{ column_name: string; data_type: string }>(COLUMNS_SQL, [schema, spec.name])).rows.map((r) => [
      r.column_name,
      r.data_type,
    ]),
  );
  const added: string[] = [];
  for (const column of columns) {
    const want = pgType(column);
    const have = existing.get(column.name);
    if (have === undefined) {
      await client.query(
        `ALTER TABLE ${qualified(schema, spec.name)} ADD COLUMN ${quoteIdent(column.name)} ${want.ddl}`,
      );
      added.push(column.name);
    } else if (have !== want.info) {
      throw new TerminalError(
        `schema mismatch: ${schema}.${spec.name}.${column.name} is ${have} in PostgreSQL but ${want.info} is synced; ` +
          'alter or drop the destination table',
      );
    }
  }
  return added;
}
