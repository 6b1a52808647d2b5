import type { DuckDBConnection } from '@duckdb/node-api';
import type { Queryable, Store } from '../../store.js';
import { dataVersion } from '../creator-search.queries.js';
import { Bitset } from './bitset.js';
import {
  DISCOVERY_TEMP_TABLES,
  loadDiscovery,
  readAges,
  readAudience,
  readFlags,
  readTerms,
  TERM_COLUMNS,
  takeDense,
} from './discovery.loader.js';
import type { Skeleton } from './index-files.codec.js';
import { IndexFileWriter, type IndexManifest } from './index-files.js';
import { eachChunk, eachChunkColumns } from './duckdb-chunks.js';
import { CONTENT_FIELDS, type LookalikeTermColumn, prepareLookalikeModel } from './lookalike-model.js';
import { handleSlotsOf, storedLookalikesOf } from './prepared-parts.js';
import type { TermColumn } from './discovery-filters.js';
import type { TermPostings } from './term-postings.js';
import { AUDIENCE_FINGERPRINTS_SQL, contentFingerprintJoin, rowFingerprintSql } from './search-delta.js';
import {
  CLUSTERED,
  rangeSuffixes,
  SearchIndex,
  type CategoricalColumn,
  type CategoricalName,
  type NumericColumn,
  type NumericName,
} from './search-index.js';
import { TextIndexBuilder, type TextIndex } from './text-index.js';
import { PackedStrings } from './packed-strings.js';

/** The categorical columns and the SQL of their values (normalised as the filters are). */
const CATEGORICAL: ReadonlyArray<[CategoricalName, string]> = [
  ['platform', 'platform'],
  ['niche', 'niche'],
  ['country', 'country'],
  ['language', 'language'],
  ['city', 'lower(city)'],
  ['verified', 'CAST(verified AS VARCHAR)'],
];
/** Columns with many values keep codes only (a bit array per value would cost N/8 bytes each). */
const WITHOUT_SETS: ReadonlySet<CategoricalName> = new Set(['city']);
/** Numeric columns and their SQL over the creators row `c`; the sort keys also keep their descending order. */
const NUMERIC: ReadonlyArray<[NumericName, boolean, string]> = [
  ['followers', true, 'c.followers'],
  ['engagement_rate', true, 'c.engagement_rate'],
  ['growth_30d_pct', true, 'c.growth_30d_pct'],
  ['authenticity_score', true, 'c.authenticity_score'],
  ['audience_us_pct', false, 'c.audience_us_pct'],
  ['avg_views', false, 'c.avg_views'],
  ['reels_avg_views', false, 'c.reels_avg_views'],
  ['last_posted_us', false, 'epoch_us(c.last_posted_at)'],
  ['price_post_usd', true, 'c.price_post_usd'],
];
const TEMP_TABLES = [
  'search_index_rows',
  ...DISCOVERY_TEMP_TABLES,
  ...CATEGORICAL.map(([name]) => `search_index_dict_${name}`),
];

/** Reports each step of a build (for the bench and the logs). */
export type BuildStepListener = (step: string, ms: number) => void;

/** A `step(name)` that reports to `onStep` the time since the previous step (or since it was made). */
function stepTimer(onStep: BuildStepListener): (name: string) => void {
  let t = performance.now();
  return (name) => {
    const now = performance.now();
    onStep(name, now - t);
    t = now;
  };
}

/**
 * Reads the store once, inside one transaction (so every part reflects the same
 * data version), and builds the search index. DuckDB numbers the rows, codes
 * the categorical values and sorts the orders; this side copies integers and
 * doubles into typed arrays, splits the texts into tokens and builds the bit
 * arrays.
 */
export async function loadSearchIndex(
  store: Store,
  onStep: BuildStepListener = () => undefined,
  options: { lookalikes?: boolean } = {},
): Promise<SearchIndex> {
  return store.transaction(async (tx) => {
    const step = stepTimer(onStep);
    const version = await dataVersion(tx);
    try {
      const dictionaries = await stageRows(tx);
      step('stage');
      const { ids, codes, values, handles, displayNames, fingerprints, audienceFingerprints } = await readRows(
        tx.connection,
        dictionaries,
      );
      const byId = await readPositions(tx.connection, 'creator_id', ids.length);
      step('rows');
      const categorical = toCategorical(dictionaries, codes, ids.length);
      const numeric = {} as Record<NumericName, NumericColumn>;
      for (const [name, sortable] of NUMERIC) {
        numeric[name] = {
          values: values[name],
          asc: await readPositions(tx.connection, `${name} ASC NULLS LAST, creator_id`, ids.length),
          desc: sortable ? await readPositions(tx.connection, `${name} DESC NULLS LAST, creator_id`, ids.length) : null,
        };
      }
      step('orders');
      const discovery = await loadDiscovery(tx, ids.length, step);
      const text = await readText(tx.connection);
      step('text');
      const index = new SearchIndex({
        version,
        ids,
        byId,
        categorical,
        numeric,
        discovery,
        text,
        handles,
        displayNames,
        fingerprints: { rows: fingerprints, audience: audienceFingerprints },
      });
      // the range suffix sets and the handle table, in slices beside the requests
      await index.prepare();
      step('ranges');
      // the lookalike vectors are prepared with the index, never on a request (docs/lookalikes.md); not for
      // an index built only to be written to its files (the readers prepare their own)
      if (options.lookalikes !== false) {
        await prepareLookalikeModel(index.lookalikeView().data);
        step('lookalikes');
      }
      return index;
    } finally {
      for (const table of TEMP_TABLES) await tx.run(`DROP TABLE IF EXISTS ${table}`);
    }
  });
}

/**
 * The index of the store's data written straight to its files in `dir`, part by
 * part, without an index in memory (the cluster writer's and the bench's
 * build): each part is read as `loadSearchIndex` reads it, written, and let go
 * before the next, so the build holds about one part at a time (a column's
 * orders, one list column's postings, the audience shares) instead of the
 * whole index — at 10M creators a few GB instead of the index's size plus the
 * build's own. The files are the ones `writeIndexFiles` writes of the same
 * data. Answers the manifest and the fingerprints a later delta compares with.
 */
export async function writeSearchIndexFiles(
  store: Store,
  dir: string,
  options: { keepOthers?: number; onStep?: BuildStepListener } = {},
): Promise<{ manifest: IndexManifest; ids: Int32Array; rows: Int32Array; audience: Int32Array }> {
  const onStep = options.onStep ?? (() => undefined);
  return store.transaction(async (tx) => {
    const step = stepTimer(onStep);
    const version = await dataVersion(tx);
    const writer = await IndexFileWriter.create(dir, version);
    const put = async (part: unknown): Promise<Skeleton> => {
      const skeleton = writer.add(part);
      await writer.flush();
      return skeleton;
    };
    try {
      const dictionaries = await stageRows(tx);
      step('stage');
      const read = await readRows(tx.connection, dictionaries);
      const { ids, fingerprints, audienceFingerprints } = read;
      const values: Partial<Record<NumericName, Float64Array>> = read.values;
      const size = ids.length;
      const data: Record<string, Skeleton> = { version };
      data.ids = await put(ids);
      data.byId = await put(await readPositions(tx.connection, 'creator_id', size));
      const categorical = toCategorical(dictionaries, read.codes, size);
      data.categorical = await put(categorical);
      data.handles = await put(read.handles);
      const handleSlots = await handleSlotsOf(read.handles);
      data.displayNames = await put(read.displayNames);
      data.fingerprints = await put({ rows: fingerprints, audience: audienceFingerprints });
      // written: the build holds them no longer
      Object.assign(read, { codes: null, handles: null, displayNames: null });
      step('rows');
      const numeric: Record<string, Skeleton> = {};
      const suffixes: Skeleton[] = [];
      for (const [name, sortable] of NUMERIC) {
        const column: NumericColumn = {
          values: values[name]!,
          asc: await readPositions(tx.connection, `${name} ASC NULLS LAST, creator_id`, size),
          desc: sortable ? await readPositions(tx.connection, `${name} DESC NULLS LAST, creator_id`, size) : null,
        };
        delete values[name];
        suffixes.push([name, await put(rangeSuffixes(column, size))]);
        numeric[name] = await put(column);
      }
      data.numeric = numeric;
      step('orders');
      const terms: Record<string, Skeleton> = {};
      // the lookalike vectors' terms are held until the vectors are built (after the audience)
      const kept: Partial<Record<TermColumn, TermPostings>> = {};
      for (const column of TERM_COLUMNS) {
        const postings = await readTerms(tx, column, size);
        terms[column] = await put(postings);
        if (CONTENT_FIELDS.some(([c]) => c === column)) kept[column] = postings;
        step(`terms ${column}`);
      }
      const flags = await put(await readFlags(tx, size));
      const audience = await readAudience(tx, size);
      const denseShares = takeDense(audience, size);
      const dense = await put(denseShares);
      const ages = await readAges(tx, size);
      data.discovery = { terms, flags, audience: await put(audience), dense, ages: await put(ages) };
      step('audience');
      const lookalikes = await storedLookalikesOf({
        size,
        niche: categorical.niche,
        discovery: { terms: kept as Record<LookalikeTermColumn, TermPostings>, audience, dense: denseShares, ages },
      });
      const prepared = await put({ handles: handleSlots, lookalikes });
      step('lookalikes');
      data.text = await put(await readText(tx.connection));
      step('text');
      const manifest = await writer.finish(
        { data, suffixes: { $: 'map', entries: suffixes }, prepared },
        size,
        options,
      );
      step('written');
      return { manifest, ids, rows: fingerprints, audience: audienceFingerprints };
    } finally {
      await writer.abandon();
      for (const table of TEMP_TABLES) await tx.run(`DROP TABLE IF EXISTS ${table}`);
    }
  });
}

/**
 * Codes each categorical value and numbers the creators: positions follow the
 * clustered columns' codes, then creator_id (see `CLUSTERED`). Answers the dictionaries.
 */
async function stageRows(tx: Queryable): Promise<Record<CategoricalName, string[]>> {
  const dictionaries = {} as Record<CategoricalName, string[]>;
  for (const [name, expr] of CATEGORICAL) {
    await tx.run(`CREATE OR REPLACE TEMP TABLE search_index_dict_${name} AS
      SELECT v, (row_number() OVER (ORDER BY v))::INTEGER AS code FROM (SELECT DISTINCT ${expr} AS v FROM creators WHERE ${expr} IS NOT NULL)`);
    dictionaries[name] = (await tx.all<{ v: string }>(`SELECT v FROM search_index_dict_${name} ORDER BY code`)).map(
      (r) => r.v,
    );
  }
  const codes = CATEGORICAL.map(([name]) => `coalesce(d_${name}.code, 0) AS ${name}`).join(', ');
  const joins = CATEGORICAL.map(
    ([name, expr]) => `LEFT JOIN search_index_dict_${name} d_${name} ON d_${name}.v = ${qualify(expr)}`,
  ).join(' ');
  const numbers = NUMERIC.map(([name, , expr]) => `${expr}::DOUBLE AS ${name}`).join(', ');
  await tx.run(`CREATE OR REPLACE TEMP TABLE search_index_rows AS
    SELECT (row_number() OVER (ORDER BY ${CLUSTERED.map((name) => `coalesce(d_${name}.code, 0)`).join(', ')}, c.creator_id) - 1)::INTEGER AS pos, c.creator_id, ${codes}, ${numbers}, c.handle, c.display_name, c.search_text,
      ${rowFingerprintSql('c')} AS fp, coalesce(a.afp, 0) AS afp
    FROM creators c ${joins} ${contentFingerprintJoin('c')} LEFT JOIN (${AUDIENCE_FINGERPRINTS_SQL}) a ON a.creator_id = c.creator_id`);
  return dictionaries;
}

/** `lower(city)` → `lower(c.city)`: the expression over the aliased creators row. */
function qualify(expr: string): string {
  return expr.replace(/\b(platform|niche|country|language|city|verified)\b/, 'c.$1');
}

/** Creator ids, codes and numbers by position, in one pass. */
async function readRows(
  c: DuckDBConnection,
  dictionaries: Record<CategoricalName, string[]>,
): Promise<{
  ids: Int32Array;
  codes: Record<CategoricalName, CategoricalColumn['codes']>;
  values: Record<NumericName, Float64Array>;
  handles: PackedStrings;
  displayNames: PackedStrings;
  fingerprints: Int32Array;
  audienceFingerprints: Int32Array;
}> {
  const size = Number((await (await c.run('SELECT count(*) FROM search_index_rows')).getRows())[0]![0]);
  const ids = new Int32Array(size);
  const codes = {} as Record<CategoricalName, CategoricalColumn['codes']>;
  for (const [name] of CATEGORICAL) codes[name] = codeArray(dictionaries[name].length, size);
  const values = {} as Record<NumericName, Float64Array>;
  for (const [name] of NUMERIC) values[name] = new Float64Array(size);
  const handles = PackedStrings.builder();
  const displayNames = PackedStrings.builder();
  const fingerprints = new Int32Array(size);
  const audienceFingerprints = new Int32Array(size);
  const columns = [
    'creator_id',
    ...CATEGORICAL.map(([n]) => n),
    ...NUMERIC.map(([n]) => n),
    'handle',
    'display_name',
    'fp',
    'afp',
  ];
  const textAt = 1 + CATEGORICAL.length + NUMERIC.length;
  let n = 0;
  await eachChunk(c, `SELECT ${columns.join(', ')} FROM search_index_rows ORDER BY pos`, (chunk) => {
    const rows = chunk.rowCount;
    const start = n;
    const idVector = chunk.getColumnVector(0);
    for (let i = 0; i < rows; i++) ids[start + i] = idVector.getItem(i) as number;
    CATEGORICAL.forEach(([name], k) => {
      const v = chunk.getColumnVector(1 + k);
      const out = codes[name];
      for (let i = 0; i < rows; i++) out[start + i] = v.getItem(i) as number;
    });
    NUMERIC.forEach(([name], k) => {
      const v = chunk.getColumnVector(1 + CATEGORICAL.length + k);
      const out = values[name];
      for (let i = 0; i < rows; i++) out[start + i] = (v.getItem(i) as number | null) ?? Number.NaN;
    });
    const h = chunk.getColumnVector(textAt);
    const d = chunk.getColumnVector(textAt + 1);
    const fp = chunk.getColumnVector(textAt + 2);
    const afp = chunk.getColumnVector(textAt + 3);
    for (let i = 0; i < rows; i++) {
      handles.push(h.getItem(i) as string);
      displayNames.push(d.getItem(i) as string | null);
      fingerprints[start + i] = fp.getItem(i) as number;
      audienceFingerprints[start + i] = afp.getItem(i) as number;
    }
    n += rows;
  });
  return {
    ids,
    codes,
    values,
    handles: handles.build(),
    displayNames: displayNames.build(),
    fingerprints,
    audienceFingerprints,
  };
}

function codeArray(dictionarySize: number, size: number): CategoricalColumn['codes'] {
  if (dictionarySize < 255) return new Uint8Array(size);
  return dictionarySize < 65_535 ? new Uint16Array(size) : new Uint32Array(size);
}

/** A bit array per code, for the columns with few values. */
function toCategorical(
  dictionaries: Record<CategoricalName, string[]>,
  codes: Record<CategoricalName, CategoricalColumn['codes']>,
  size: number,
): Record<CategoricalName, CategoricalColumn> {
  const out = {} as Record<CategoricalName, CategoricalColumn>;
  for (const [name] of CATEGORICAL) {
    const column = codes[name];
    let sets: Bitset[] | null = null;
    if (!WITHOUT_SETS.has(name)) {
      sets = [new Bitset(size), ...dictionaries[name].map(() => new Bitset(size))];
      for (let p = 0; p < size; p++) sets[column[p]!]!.add(p);
    }
    const runs = CLUSTERED.includes(name) ? runsOf(column, dictionaries[name].length + 1) : null;
    out[name] = { dictionary: dictionaries[name], codes: column, sets, runs };
  }
  return out;
}

/** Per code, the runs of consecutive positions holding it, as `[start, end, …)`. */
function runsOf(codes: CategoricalColumn['codes'], codeCount: number): Int32Array[] {
  const runs: number[][] = Array.from({ length: codeCount }, () => []);
  let start = 0;
  for (let p = 1; p <= codes.length; p++) {
    if (p < codes.length && codes[p] === codes[start]) continue;
    runs[codes[start]!]!.push(start, p);
    start = p;
  }
  return runs.map((r) => Int32Array.from(r));
}

/** The positions in an order (for the sort keys: by value, NULLs last, ties by creator id ascending — the SQL's ORDER BY). */
async function readPositions(c: DuckDBConnection, orderBy: string, size: number): Promise<Int32Array> {
  const order = new Int32Array(size);
  let n = 0;
  await eachChunkColumns(c, `SELECT pos FROM search_index_rows ORDER BY ${orderBy}`, (rows, p) => {
    for (let i = 0; i < rows; i++) order[n++] = p.getItem(i) as number;
  });
  return order;
}

/** The text index, built as the texts stream in. */
async function readText(c: DuckDBConnection): Promise<TextIndex> {
  const builder = new TextIndexBuilder();
  await eachChunkColumns(c, 'SELECT search_text FROM search_index_rows ORDER BY pos', (rows, v) => {
    for (let i = 0; i < rows; i++) builder.add((v.getItem(i) as string | null) ?? '');
  });
  return builder.finish();
}
