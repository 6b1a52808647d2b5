import type { Queryable } from '../../data/store.js';
import { quoteIdent } from '../../data/sql.js';
import { SQL_TYPES, type ColumnSpec, type EntitySpec } from '../entities/entity.js';
import { READER_REJECTS, type StagedFile } from './stage.js';

/** Where quarantined rows are recorded from. */
export interface BatchContext {
  runId: string;
  pipeline: string;
  file: string;
}

/**
 * Types, normalises and checks every staged row set-based into `stg_typed`:
 * one row per `stg_raw` row with `__rid`, `__line` (rows are appended in file
 * order, but inside a transaction rowids start at a large base, hence the offset), the typed columns, the
 * creator it names (`creator_id`, with the stored `__cur_version` when it has a
 * version column) and `__err`, the list of every fault {col, reason} the row-level
 * rules find (a type, a required value, a check, surplus fields), or NULL when none:
 * a user fixing a file wants all of a row's faults at once, not one per attempt.
 */
export async function typeBatch(tx: Queryable, spec: EntitySpec, staged: StagedFile): Promise<void> {
  const cast = spec.columns.map((c) => castSql(c, staged));
  const normalised = spec.columns.map(
    (c) => `${c.normalise ? c.normalise(quoteIdent(c.name)) : quoteIdent(c.name)} AS ${quoteIdent(c.name)}`,
  );
  const extras = staged.columns.filter((c) => /^column\d+$/.test(c) && !spec.columns.some((s) => s.name === c));
  const creatorJoin = spec.columns.some((c) => c.name === 'handle');
  // Each check is evaluated once into its own column; the error CASE only reads them.
  const checked = spec.columns.filter((c) => c.check);
  const version = spec.versionColumn && spec.name === 'creators' ? ', cur.updated_at AS __cur_version' : '';
  const rowId = quoteIdent(staged.rowId);
  // A file read in place numbers its rows from 0; rowids of `stg_raw` start where the transaction's do.
  const first =
    staged.relation === 'stg_raw' ? '(SELECT min(rowid) AS first_rid FROM stg_raw)' : '(SELECT 0 AS first_rid)';
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE stg_typed AS
    WITH c AS (
      SELECT __rid, __idx + ${staged.lineOffset}${staged.readerRejects > 0 ? ' + coalesce(shift.__shift, 0)' : ''} AS __line, ${cast.join(', ')}
        ${extras.map((e) => `, ${quoteIdent(e)} IS NOT NULL AS __extra_${e}`).join('')}
      FROM (SELECT src.*, ${rowId} AS __rid, ${rowId} - base.first_rid AS __idx FROM ${staged.relation} src, ${first} base) src
        ${staged.readerRejects > 0 ? `ASOF LEFT JOIN (${lineShiftsSql(staged)}) shift ON shift.__after_records <= src.__idx` : ''}
    ), n AS (
      SELECT __rid, __line, ${normalised.join(', ')}, ${spec.columns.map((c) => `__bad_${c.name}`).join(', ')}
        ${extras.map((e) => `, __extra_${e}`).join('')}
      FROM c
    )
    , k AS (
      SELECT n.*, ${checked.map((c) => `${c.check?.(`n.${quoteIdent(c.name)}`)} AS __chk_${c.name}`).join(', ') || 'NULL AS __none'}
      FROM n
    )
    SELECT ${['__rid', '__line', ...spec.columns.map((c) => c.name)].map((c) => `k.${quoteIdent(c)}`).join(', ')},
      ${errorList(spec, extras)} AS __err
      ${creatorJoin ? `, cur.creator_id${version}` : ''}
    FROM k
    ${creatorJoin ? 'LEFT JOIN creators cur ON cur.platform = k.platform AND cur.handle = k.handle' : ''}`,
    [...staged.params],
  );
}

/**
 * The typed value and whether the value failed to convert. Empty text is NULL.
 * A column already of the target type (Parquet) is taken as is; text is cast
 * directly (DuckDB's casts allow surrounding blanks) and only a failed cast
 * looks at the text again, so the common case costs one cast.
 */
function castSql(c: ColumnSpec, staged: StagedFile): string {
  const name = quoteIdent(c.name);
  const target = SQL_TYPES[c.type];
  const type = staged.types[c.name];
  if (type === undefined) return `NULL::${target} AS ${name}, false AS __bad_${c.name}`;
  if (c.type === 'text')
    return `${trimmedTextSql(`${name}::VARCHAR`, c.prose === true)} AS ${name}, false AS __bad_${c.name}`;
  if (type === target) return `${name} AS ${name}, false AS __bad_${c.name}`;
  const typed = type === 'VARCHAR' ? textCast(name, c.type) : `TRY_CAST(${name} AS ${target})`;
  const blank = type === 'VARCHAR' ? ` AND trim(${name}) <> ''` : '';
  return `${typed} AS ${name}, (${typed} IS NULL AND ${name} IS NOT NULL${blank}) AS __bad_${c.name}`;
}

/** The Unicode space separators (`\p{Zs}`), as code points: exactly what DuckDB's `trim` removes (checked over every code point). */
const SPACE_SEPARATORS = [
  0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200a, 0x202f,
  0x205f, 0x3000,
];

/**
 * Text without its surrounding blanks, NULL when nothing is left. `trim` copies every string it is
 * given; a long one (`prose`) is trimmed only when it starts or ends with a space separator, looked for
 * with its first code point and an end-anchored expression (which the engine matches from the end):
 * a third of the cost on captions. On short text the plain `trim` is the cheaper.
 */
export function trimmedTextSql(value: string, prose: boolean): string {
  if (!prose) return `nullif(trim(${value}), '')`;
  return (
    `CASE WHEN ascii(${value}) IN (${SPACE_SEPARATORS.join(', ')}) OR regexp_matches(${value}, '\\p{Zs}$') ` +
    `THEN nullif(trim(${value}), '') ELSE nullif(${value}, '') END`
  );
}

/**
 * Records the CSV reader rejected are not in `stg_raw`, so each one before a record moves its
 * line on by one: the j-th rejected line (0-based) comes after `line - lineOffset - j` read
 * records. Per such count, how many lines to add (`__shift`) to a record whose index is at
 * least `__after_records`; typeBatch finds a record's with an ASOF join (a subquery per row
 * took seconds at 500 rejects in 1M rows and did not finish at 250,000).
 */
function lineShiftsSql(staged: StagedFile): string {
  // rejected lines in a row share a count: the last of them gives the shift
  return `SELECT __after_records, max(__shift) AS __shift FROM (
      SELECT line - ${staged.lineOffset} - (row_number() OVER (ORDER BY line) - 1) AS __after_records, row_number() OVER (ORDER BY line) AS __shift
      FROM (SELECT DISTINCT line FROM temp.main.${READER_REJECTS}))
    GROUP BY __after_records`;
}

/**
 * A timestamp with no UTC offset and no zone name (optionally `Z`): DuckDB's own TIMESTAMP cast reads it
 * as UTC, like the zone-aware cast does, at a tenth of its cost.
 */
const PLAIN_TIMESTAMP = String.raw`\s*\d{4,}-\d{1,2}-\d{1,2}([ T]\d{1,2}:\d{1,2}(:\d{1,2}(\.\d+)?)?)?Z?\s*`;

/**
 * Text to a type: timestamps honour a UTC offset or zone name (stored as UTC), booleans ignore case and blanks.
 * Only a timestamp that names an offset or zone goes through the zone-aware cast: it is ten times dearer, and
 * DuckDB's zone-aware cast of a vector carries a zone name on to the zone-less rows after it
 * (`… America/New_York` then `2026-01-01 10:00:00.5` read the second as New York time).
 */
function textCast(name: string, type: ColumnSpec['type']): string {
  if (type === 'timestamp') {
    return (
      `CASE WHEN regexp_full_match(${name}, '${PLAIN_TIMESTAMP}') THEN TRY_CAST(${name} AS TIMESTAMP) ` +
      `ELSE (TRY_CAST(${name} AS TIMESTAMPTZ) AT TIME ZONE 'UTC') END`
    );
  }
  if (type === 'boolean') return `TRY_CAST(lower(trim(${name})) AS BOOLEAN)`;
  return `TRY_CAST(${name} AS ${SQL_TYPES[type]})`;
}

/**
 * Every fault of a row as a list of {col, reason}, NULL when there is none: a
 * value that is not its type, missing, or failing its check, and surplus fields.
 * A value that is not its type is not also reported missing. The list is only
 * built for a row that fails some rule (most rows fail none).
 */
function errorList(spec: EntitySpec, extras: readonly string[]): string {
  const rules: Array<[when: string, fault: string]> = extras.map((e) => [
    `__extra_${e}`,
    fault(null, "'more fields than the header names'"),
  ]);
  for (const c of spec.columns) {
    rules.push([`__bad_${c.name}`, fault(c.name, `'not a valid ${c.type}'`)]);
    if (c.required)
      rules.push([`(k.${quoteIdent(c.name)} IS NULL AND NOT __bad_${c.name})`, fault(c.name, "'is required'")]);
    if (c.check) rules.push([`__chk_${c.name} IS NOT NULL`, fault(c.name, `__chk_${c.name}`)]);
  }
  const list = rules.map(([when, f]) => `CASE WHEN ${when} THEN ${f} END`).join(',\n        ');
  return `CASE WHEN ${rules.map(([when]) => when).join(' OR ')} THEN list_filter([${list}], f -> f IS NOT NULL) END`;
}

/** One fault as an SQL struct; the column is NULL for a fault of the whole row. */
function fault(column: string | null, reasonSql: string): string {
  return `{'col': ${column === null ? 'NULL::VARCHAR' : `'${column}'`}, 'reason': (${reasonSql})::VARCHAR}`;
}

/** Appends a fault to `__err`, creating the list for a row that had none. */
function appendFault(column: string | null, reasonSql: string): string {
  return `list_append(coalesce(__err, []), ${fault(column, reasonSql)})`;
}

/**
 * Adds a fault to the rows of `stg_typed` matching `where` whose `keys` (the
 * columns the rule reads) have no fault already: a row naming an unknown campaign
 * is told so even when another of its values is bad, but a handle that is not
 * valid is not also an unknown creator.
 */
export async function reject(
  tx: Queryable,
  where: string,
  column: string,
  reasonSql: string,
  keys: readonly string[] = [column],
): Promise<void> {
  const clean = `len(list_filter(coalesce(__err, []), f -> f.col IN (${keys.map((k) => `'${k}'`).join(', ')}))) = 0`;
  await tx.run(`UPDATE stg_typed SET __err = ${appendFault(column, reasonSql)} WHERE ${clean} AND (${where})`);
}

/**
 * Batch-level rules on the typed rows: the same key twice in one file (the
 * newest, then the last, is kept), rows naming an unknown creator, campaign or
 * account, and audience dimensions whose shares add up past 100.5.
 */
export async function checkBatch(tx: Queryable, spec: EntitySpec): Promise<void> {
  const order = `${spec.versionColumn ? `${quoteIdent(spec.versionColumn)} DESC NULLS LAST, ` : ''}__line DESC`;
  // Grouped on the key's hash first (an integer, not the key's text), then ranked on the key itself among
  // the rows whose hash repeats: a collision of two different keys only lands both in the candidates.
  const keyHash = keyHashSql(spec);
  await tx.run(`CREATE OR REPLACE TEMP TABLE stg_dups AS
    WITH d AS (SELECT ${keyHash} AS __h FROM stg_typed WHERE __err IS NULL GROUP BY ALL HAVING count(*) > 1)
    SELECT __rid, first_value(__line) OVER w AS kept, row_number() OVER w AS rank
    FROM stg_typed s
    WHERE s.__err IS NULL AND ${keyHash} IN (SELECT __h FROM d)
    WINDOW w AS (PARTITION BY ${spec.key.map((k) => `s.${quoteIdent(k)}`).join(', ')} ORDER BY ${order})`);
  await tx.run(`UPDATE stg_typed s SET __err = [${fault(null, `'duplicate key in this file; line ' || d.kept || ' is kept'`)}]
    FROM stg_dups d WHERE d.__rid = s.__rid AND d.rank > 1 AND s.__err IS NULL`);
  if (spec.refersToCreator) {
    await reject(
      tx,
      'creator_id IS NULL AND platform IS NOT NULL AND handle IS NOT NULL',
      'handle',
      `'unknown creator ' || platform || ' ' || handle`,
      ['platform', 'handle'],
    );
  }
  if (spec.name === 'campaigns') {
    await resolveAccountNames(tx);
    await reject(
      tx,
      'account_id NOT IN (SELECT account_id FROM accounts)',
      'account_id',
      `'unknown account ' || account_id`,
    );
  }
  if (spec.name === 'campaign_creators' || spec.name === 'campaign_metrics') {
    await reject(
      tx,
      'campaign_id NOT IN (SELECT campaign_id FROM campaigns)',
      'campaign_id',
      `'unknown campaign ' || campaign_id`,
    );
  }
  if (spec.name === 'audience') {
    const total =
      'CASE WHEN t.total = round(t.total) THEN round(t.total)::BIGINT::VARCHAR ELSE round(t.total, 2)::VARCHAR END';
    await tx.run(`UPDATE stg_typed s SET __err = [${fault('pct', `'the ' || s.dimension || ' shares add up to ' || ${total} || ' (over 100.5)'`)}]
      FROM (SELECT creator_id, dimension, sum(pct) AS total FROM stg_typed WHERE __err IS NULL GROUP BY ALL HAVING sum(pct) > 100.5) t
      WHERE s.creator_id = t.creator_id AND s.dimension = t.dimension AND s.__err IS NULL`);
  }
}

/**
 * The hash a row's key is grouped on to find duplicates. A row naming a stored creator hashes its
 * creator id in place of the platform and handle (an integer hashes for less than two strings, a third
 * of the check's time on a posts file); a row naming none hashes the key's text. Equal keys always hash
 * alike, so no duplicate is missed; a collision only makes a candidate, ranked on the key itself.
 */
function keyHashSql(spec: EntitySpec): string {
  const text = `hash(${spec.key.map(quoteIdent).join(', ')})`;
  const rest = spec.key.filter((k) => k !== 'platform' && k !== 'handle');
  if (!spec.refersToCreator || !spec.key.includes('platform') || !spec.key.includes('handle')) return text;
  return `CASE WHEN creator_id IS NULL THEN ${text} ELSE hash(${['creator_id', ...rest].map(quoteIdent).join(', ')}) END`;
}

/**
 * A campaign's `account_id` may name the account as the CLI's `--account` does, by
 * its id or its (unique) name: ids are random per store, so a file written by
 * hand names `acme`. An id wins when a name looks like one.
 */
async function resolveAccountNames(tx: Queryable): Promise<void> {
  await tx.run(`UPDATE stg_typed s SET account_id = a.account_id FROM accounts a
    WHERE a.name = s.account_id AND s.account_id NOT IN (SELECT account_id FROM accounts)`);
}

/**
 * Moves every failing row of the batch to the quarantine, one quarantine row per
 * fault, each with the row's raw fields as JSON. Answers how many rows (not
 * faults) failed: that is what `rows_rejected` counts.
 */
export async function quarantineBatch(tx: Queryable, ctx: BatchContext, staged: StagedFile): Promise<number> {
  // The raw row as JSON: every column the file has, as read (a file read in place, without the reader's numbering).
  const raw =
    staged.relation === 'stg_raw'
      ? 'to_json(r)'
      : `to_json(struct_pack(${staged.columns.map((c) => `${quoteIdent(c)} := r.${quoteIdent(c)}`).join(', ')}))`;
  // one statement, ordered by line, so the faults are stored (and listed) in file order with the reader's rejects among them
  await tx.run(
    `INSERT INTO quarantine (run_id, pipeline, file, line, column_name, reason, raw)
    SELECT ?, ?, ?, line, col, reason, raw FROM (
      SELECT f.__line AS line, f.i, f.e.col AS col, f.e.reason AS reason, ${raw} AS raw
      FROM (SELECT __rid, __line, unnest(__err) AS e, generate_subscripts(__err, 1) AS i FROM stg_typed WHERE __err IS NOT NULL) f
        JOIN ${staged.relation} r ON r.${quoteIdent(staged.rowId)} = f.__rid
      ${staged.readerRejects > 0 ? `UNION ALL ${READER_REJECT_FAULTS}` : ''})
    ORDER BY line, i`,
    [ctx.runId, ctx.pipeline, ctx.file, ...staged.params],
  );
  return (
    ((await tx.one<{ n: number }>('SELECT count(*) AS n FROM stg_typed WHERE __err IS NOT NULL'))?.n ?? 0) +
    staged.readerRejects
  );
}

/**
 * The CSV records the reader refused, one fault each (line, i, col, reason, raw), their text
 * as the raw row (`csv_line`): their fields cannot be named.
 */
const READER_REJECT_FAULTS = `SELECT line, 1 AS i, NULL AS col,
    CASE WHEN error_type = 'TOO MANY COLUMNS' THEN 'more fields than the header names' ELSE 'unreadable record: ' || error_message END AS reason,
    to_json({'csv_line': csv_line}) AS raw
  FROM (SELECT line, arg_min(error_type, column_idx) AS error_type, arg_min(error_message, column_idx) AS error_message,
          any_value(csv_line) AS csv_line FROM temp.main.${READER_REJECTS} GROUP BY line)`;
