import type { Queryable } from '../../store.js';
import { AGE_RANGES } from '../creator-taxonomy.js';
import { Bitset, complement } from './bitset.js';
import type { AudienceShares, DiscoveryData, FlagName, TermColumn } from './discovery-filters.js';
import { eachChunk, eachChunkColumns } from './duckdb-chunks.js';
import { AUDIENCE_DIMENSIONS } from './search-delta.js';
import { compactShares, type ShareColumn, shareAt } from './share-column.js';
import { sortTerms, TermPostingsBuilder, type TermPostings } from './term-postings.js';

export const TERM_COLUMNS: readonly TermColumn[] = [
  'hashtags',
  'mentions',
  'brands',
  'caption_words',
  'linked_platforms',
];
const FLAGS: ReadonlyArray<[FlagName, string]> = [
  ['has_sponsored_posts', 'coalesce(c.sponsored_posts, 0) > 0'],
  ['has_contact', 'coalesce(c.has_contact, false)'],
];
/** Temp tables this loader makes (dropped by the caller with the others). */
export const DISCOVERY_TEMP_TABLES = ['search_index_terms', 'search_index_term_dict', 'search_index_audience_keys'];

/**
 * The discovery half of the index, read inside the index's transaction from
 * `creators`, `creator_content` and `audience` joined to `search_index_rows` (the positions): term
 * postings per list column, the yes/no flags, and audience shares per
 * dimension and key. DuckDB unnests, codes and sorts; this side fills arrays.
 */
export async function loadDiscovery(
  tx: Queryable,
  size: number,
  onStep: (name: string) => void,
): Promise<DiscoveryData> {
  const terms = {} as Record<TermColumn, TermPostings>;
  for (const column of TERM_COLUMNS) {
    terms[column] = await readTerms(tx, column, size);
    onStep(`terms ${column}`);
  }
  const flags = await readFlags(tx, size);
  const audience = await readAudience(tx, size);
  const dense = takeDense(audience, size);
  const ages = await readAges(tx, size);
  onStep('audience');
  return { terms, flags, audience, dense, ages };
}

/**
 * One list column's postings: the distinct values are sorted here (code unit
 * order, which prefix ranges need) and sent back as the codes DuckDB sorts the
 * postings by, so they stream in final order into an array of their exact size.
 */
export async function readTerms(tx: Queryable, column: TermColumn, size: number): Promise<TermPostings> {
  await tx.run(`CREATE OR REPLACE TEMP TABLE search_index_terms AS
    SELECT r.pos, unnest(k.${column}) AS v FROM creator_content k JOIN search_index_rows r USING (creator_id)`);
  const terms = sortTerms(
    (await tx.all<{ v: string }>('SELECT DISTINCT v FROM search_index_terms WHERE v IS NOT NULL')).map((r) => r.v),
  );
  await tx.run('CREATE OR REPLACE TEMP TABLE search_index_term_dict (v VARCHAR NOT NULL, code INTEGER NOT NULL)');
  const appender = await tx.connection.createAppender('search_index_term_dict', 'main', 'temp');
  try {
    terms.forEach((term, code) => {
      appender.appendVarchar(term);
      appender.appendInteger(code);
      appender.endRow();
    });
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  const total = Number(
    (await tx.one<{ n: number }>('SELECT count(*) AS n FROM search_index_terms WHERE v IS NOT NULL'))?.n ?? 0,
  );
  const builder = new TermPostingsBuilder(size, terms, total);
  await eachChunkColumns(
    tx.connection,
    `SELECT d.code, t.pos FROM search_index_terms t JOIN search_index_term_dict d USING (v)
      ORDER BY d.code, t.pos`,
    (rows, code, pos) => {
      for (let i = 0; i < rows; i++) builder.add(code.getItem(i) as number, pos.getItem(i) as number);
    },
  );
  await tx.run('DROP TABLE IF EXISTS search_index_terms');
  // caption words are searched by prefix: their broad prefixes keep their unions
  return builder.finish({ runs: column === 'caption_words' });
}

export async function readFlags(tx: Queryable, size: number): Promise<DiscoveryData['flags']> {
  const yes = FLAGS.map(() => new Bitset(size));
  await eachChunk(
    tx.connection,
    `SELECT r.pos, ${FLAGS.map(([, expr]) => expr).join(', ')}
      FROM creators c JOIN search_index_rows r USING (creator_id)`,
    (chunk) => {
      const rows = chunk.rowCount;
      const pos = chunk.getColumnVector(0);
      FLAGS.forEach((_, k) => {
        const v = chunk.getColumnVector(1 + k);
        for (let i = 0; i < rows; i++) if (v.getItem(i) === true) yes[k]!.add(pos.getItem(i) as number);
      });
    },
  );
  const out = {} as Record<FlagName, { yes: Bitset; no: Bitset }>;
  FLAGS.forEach(([name], k) => {
    out[name] = { yes: yes[k]!, no: complement(yes[k]!) };
  });
  return out;
}

/**
 * Audience shares per dimension and key, each key's creators largest share
 * first. Quality keeps only `real` (the one quality filter).
 */
export async function readAudience(tx: Queryable, size: number): Promise<Map<string, Map<string, AudienceShares>>> {
  const dimensions = AUDIENCE_DIMENSIONS.map((d) => `'${d}'`).join(', ');
  await tx.run(`CREATE OR REPLACE TEMP TABLE search_index_audience_keys AS
    SELECT dimension, key, (row_number() OVER (ORDER BY dimension, key) - 1)::INTEGER AS code
    FROM (SELECT DISTINCT dimension, key FROM audience WHERE dimension IN (${dimensions}) AND dimension <> 'age'
      AND (dimension <> 'quality' OR key = 'real'))`);
  // each key's rows counted first, so its arrays are allocated once, at their size
  const keys = await tx.all<{ dimension: string; key: string; n: number }>(`SELECT k.dimension, k.key, count(a.pct) AS n
    FROM search_index_audience_keys k LEFT JOIN audience a ON a.dimension = k.dimension AND a.key = k.key
      AND a.creator_id IN (SELECT creator_id FROM search_index_rows)
    GROUP BY k.code, k.dimension, k.key ORDER BY k.code`);
  const positions = keys.map((k) => new Int32Array(Number(k.n)));
  const pcts = keys.map((k) => new Float64Array(Number(k.n)));
  const filled = new Int32Array(keys.length);
  const seen = new Bitset(size);
  let seenFor = -1;
  await eachChunkColumns(
    tx.connection,
    `SELECT k.code, r.pos, a.pct::DOUBLE FROM audience a
      JOIN search_index_rows r USING (creator_id) JOIN search_index_audience_keys k ON k.dimension = a.dimension AND k.key = a.key
      WHERE a.pct IS NOT NULL ORDER BY k.code, a.pct DESC, r.pos`,
    (rows, k, p, v) => {
      for (let i = 0; i < rows; i++) {
        const code = k.getItem(i) as number;
        const pos = p.getItem(i) as number;
        if (code !== seenFor) {
          // one key at a time (rows come by key): forget the previous key's creators
          if (seenFor >= 0) for (const q of positions[seenFor]!.subarray(0, filled[seenFor])) seen.remove(q);
          seenFor = code;
        }
        // a creator listed twice for a key matches by its largest share, the first seen
        if (seen.has(pos)) continue;
        seen.add(pos);
        positions[code]![filled[code]!] = pos;
        pcts[code]![filled[code]!++] = v.getItem(i) as number;
      }
    },
  );
  const out = new Map<string, Map<string, AudienceShares>>();
  keys.forEach(({ dimension, key }, i) => {
    if (!out.has(dimension)) out.set(dimension, new Map());
    const n = filled[i]!;
    // a key with creators listed twice ends short of its row count: only then copied to its size
    out.get(dimension)!.set(
      key,
      // the shares 16-bit where they are all hundredths (share-column.ts)
      n === positions[i]!.length
        ? { positions: positions[i]!, pcts: compactShares(pcts[i]!) }
        : { positions: positions[i]!.slice(0, n), pcts: compactShares(pcts[i]!.slice(0, n)) },
    );
  });
  return out;
}

/**
 * A key held by at least 1/DENSE_SHARE of the creators is kept as shares by
 * position, 8 bytes a creator, instead of as a list, 12 bytes a holder: no
 * more memory, and a minimum is then one sequential pass over the store (a
 * low one over a list is a random bit write per holder, most of the store).
 */
const DENSE_SHARE = 2;
/** Country keys stay lists: `audience_country` is planned by the index on lists (and US reads its own column). */
const LISTED_ONLY = new Set(['country']);

/** The dense keys' lists taken out of `audience` and returned as shares by position (NaN: none). */
export function takeDense(
  audience: Map<string, Map<string, AudienceShares>>,
  size: number,
): Map<string, Map<string, ShareColumn>> {
  const out = new Map<string, Map<string, ShareColumn>>();
  for (const [dimension, keys] of audience) {
    if (LISTED_ONLY.has(dimension)) continue;
    for (const [key, shares] of keys) {
      if (size === 0 || shares.positions.length * DENSE_SHARE < size) continue;
      const column = new Float64Array(size).fill(Number.NaN);
      // the list holds each creator once, with its largest share
      for (let i = 0; i < shares.positions.length; i++) column[shares.positions[i]!] = shareAt(shares.pcts, i);
      if (!out.has(dimension)) out.set(dimension, new Map());
      out.get(dimension)!.set(key, compactShares(column));
      keys.delete(key);
    }
  }
  return out;
}

/** Age shares by position, one array per range (NaN: none; a range listed twice: its largest share). */
export async function readAges(tx: Queryable, size: number): Promise<ShareColumn[]> {
  const ages = AGE_RANGES.map(() => new Float64Array(size).fill(Number.NaN));
  await eachChunkColumns(
    tx.connection,
    `SELECT (list_position(${`[${AGE_RANGES.map((r) => `'${r}'`).join(', ')}]`}, a.key) - 1)::INTEGER, r.pos, max(a.pct)::DOUBLE
      FROM audience a JOIN search_index_rows r USING (creator_id)
      WHERE a.dimension = 'age' AND a.pct IS NOT NULL AND a.key IN (${AGE_RANGES.map((r) => `'${r}'`).join(', ')})
      GROUP BY ALL`,
    (rows, k, p, v) => {
      for (let i = 0; i < rows; i++) ages[k.getItem(i) as number]![p.getItem(i) as number] = v.getItem(i) as number;
    },
  );
  return ages.map(compactShares);
}
