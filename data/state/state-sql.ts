/** A column type of a JSON record set, in DuckDB's spelling (PostgreSQL's is derived). */
export type RecordType = 'VARCHAR' | 'INTEGER' | 'TIMESTAMP' | 'DOUBLE';

/**
 * What differs between the two engines that hold the service state, as
 * capabilities and SQL fragments (the way Kysely's dialect adapters do it):
 * repository code asks for a fragment and writes one statement, and only
 * data/state/ knows which engine answers (test/unit/architecture holds it).
 * Arguments are SQL expressions and identifiers of the caller's own text,
 * never user input.
 */
export interface StateSql {
  /**
   * Whether other processes share this state (PostgreSQL in cluster mode):
   * claims then lock rows and honour leases, and limits are counted in the
   * state; embedded, one process owns it all.
   */
  readonly shared: boolean;
  /** The locking suffix of a claim's SELECT: `FOR UPDATE [OF alias] SKIP LOCKED` where others claim too, else ''. */
  skipLocked(of?: string): string;
  /**
   * A sum of one hash per row over `columns` (the `arrays` among them are
   * lists), for fingerprints that move whenever a row does.
   */
  hashSum(columns: readonly string[], arrays?: readonly string[]): string;
  /** The JSON text bound to `param` (an array of objects) as a table `alias` with typed `columns`. */
  jsonRecordset(param: string, columns: ReadonlyArray<readonly [string, RecordType]>, alias: string): string;
  /** The array member `key` of the JSON value `json` as a VARCHAR list, empty when absent. */
  jsonTextList(json: string, key: string): string;
  /**
   * An aggregate of one object per row with `fields` (name, expression) in
   * `orderBy` order: a list of structs on DuckDB, JSON array text on PostgreSQL
   * (the caller parses a string).
   */
  objectList(fields: ReadonlyArray<readonly [string, string]>, orderBy: string): string;
}

export const DUCKDB_SQL: StateSql = {
  shared: false,
  skipLocked: () => '',
  hashSum: (columns) => `sum(hash(${columns.join(', ')}))`,
  jsonRecordset: (param, columns, alias) =>
    `(SELECT unnest(from_json(${param}::JSON, '[{${columns.map(([name, type]) => `"${name}":"${type}"`).join(',')}}]'),
      recursive := true)) ${alias}`,
  jsonTextList: (json, key) => `coalesce(CAST(${json}->'$.${key}' AS VARCHAR[]), [])`,
  objectList: (fields, orderBy) =>
    `list({${fields.map(([name, value]) => `'${name}': ${value}`).join(', ')}} ORDER BY ${orderBy})`,
};

const PG_TYPE: Readonly<Record<RecordType, string>> = {
  VARCHAR: 'VARCHAR',
  INTEGER: 'INTEGER',
  TIMESTAMP: 'TIMESTAMP',
  DOUBLE: 'FLOAT8',
};

export const POSTGRES_SQL: StateSql = {
  shared: true,
  skipLocked: (of) => ` FOR UPDATE${of ? ` OF ${of}` : ''} SKIP LOCKED`,
  hashSum: (columns, arrays = []) =>
    `sum(hashtextextended(concat_ws('|', ${columns
      .map((c) => (arrays.includes(c) ? `array_to_string(${c}, ',')` : c))
      .join(', ')}), 0)::NUMERIC)`,
  jsonRecordset: (param, columns, alias) =>
    `json_to_recordset(${param}::JSON) AS ${alias}(${columns.map(([name, type]) => `${name} ${PG_TYPE[type]}`).join(', ')})`,
  jsonTextList: (json, key) => `ARRAY(SELECT json_array_elements_text(${json}->'${key}'))::VARCHAR[]`,
  objectList: (fields, orderBy) =>
    `json_agg(json_build_object(${fields.map(([name, value]) => `'${name}', ${value}`).join(', ')}) ORDER BY ${orderBy})`,
};
