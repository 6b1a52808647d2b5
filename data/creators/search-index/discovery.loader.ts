import type { Queryable } from '../../store.js';
import { Bitset } from './bitset.js';
import type { AudienceShares, DiscoveryData, FlagName, TermColumn } from './discovery-filters.js';
import { eachChunk } from './duckdb-chunks.js';
import { AUDIENCE_DIMENSIONS } from './search-delta.js';
import { TermPostingsBuilder, type TermPostings } from './term-postings.js';

const TERM_COLUMNS: readonly TermColumn[] = ['hashtags', 'mentions', 'brands', 'caption_words', 'linked_platforms'];
const FLAGS: ReadonlyArray<[FlagName, string]> = [
  ['has_sponsored_posts', 'coalesce(c.sponsored_posts, 0) > 0'], ['has_contact', 'coalesce(c.has_contact, false)'],
];
/** Temp tables this loader makes (dropped by the caller with the others). */
export const DISCOVERY_TEMP_TABLES = ['search_index_terms', 'search_index_term_dict', 'search_index_audience_keys'];

/**
 * The discovery half of the index, read inside the index's transaction from
 * `creators` and `audience` joined to `search_index_rows` (the positions): term
 * postings per list column, the yes/no flags, and audience shares per
 * dimension and key. DuckDB unnests, codes and sorts; this side fills arrays.
 */
export async function loadDiscovery(tx: Queryable, size: number, onStep: (name: string) => void): Promise<DiscoveryData> {
  const terms = {} as Record<TermColumn, TermPostings>;
  for (const column of TERM_COLUMNS) {
    terms[column] = await readTerms(tx, column, size);
    onStep(`terms ${column}`);
  }
  const flags = await readFlags(tx, size);
  const audience = await readAudience(tx, size);
  onStep('audience');
  return { terms, flags, audience };
}

async function readTerms(tx: Queryable, column: TermColumn, size: number): Promise<TermPostings> {
  await tx.run(`CREATE OR REPLACE TEMP TABLE search_index_terms AS
    SELECT r.pos, unnest(c.${column}) AS v FROM creators c JOIN search_index_rows r USING (creator_id)`);
  await tx.run(`CREATE OR REPLACE TEMP TABLE search_index_term_dict AS
    SELECT v, (row_number() OVER (ORDER BY v) - 1)::INTEGER AS code FROM (SELECT DISTINCT v FROM search_index_terms WHERE v IS NOT NULL)`);
  const dictionary = (await tx.all<{ v: string }>('SELECT v FROM search_index_term_dict ORDER BY code')).map((r) => r.v);
  const builder = new TermPostingsBuilder(size, dictionary);
  await eachChunk(tx.connection, `SELECT d.code, t.pos FROM search_index_terms t JOIN search_index_term_dict d USING (v)
      ORDER BY d.code, t.pos`, (chunk) => {
    const rows = chunk.rowCount;
    const code = chunk.getColumnVector(0);
    const pos = chunk.getColumnVector(1);
    for (let i = 0; i < rows; i++) builder.add(code.getItem(i) as number, pos.getItem(i) as number);
  });
  await tx.run('DROP TABLE IF EXISTS search_index_terms');
  return builder.finish();
}

async function readFlags(tx: Queryable, size: number): Promise<DiscoveryData['flags']> {
  const yes = FLAGS.map(() => new Bitset(size));
  await eachChunk(tx.connection, `SELECT r.pos, ${FLAGS.map(([, expr]) => expr).join(', ')}
      FROM creators c JOIN search_index_rows r USING (creator_id)`, (chunk) => {
    const rows = chunk.rowCount;
    const pos = chunk.getColumnVector(0);
    FLAGS.forEach((_, k) => {
      const v = chunk.getColumnVector(1 + k);
      for (let i = 0; i < rows; i++) if (v.getItem(i) === true) yes[k]!.add(pos.getItem(i) as number);
    });
  });
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
async function readAudience(tx: Queryable, size: number): Promise<Map<string, Map<string, AudienceShares>>> {
  const dimensions = AUDIENCE_DIMENSIONS.map((d) => `'${d}'`).join(', ');
  await tx.run(`CREATE OR REPLACE TEMP TABLE search_index_audience_keys AS
    SELECT dimension, key, (row_number() OVER (ORDER BY dimension, key) - 1)::INTEGER AS code
    FROM (SELECT DISTINCT dimension, key FROM audience WHERE dimension IN (${dimensions}) AND (dimension <> 'quality' OR key = 'real'))`);
  const keys = await tx.all<{ dimension: string; key: string }>('SELECT dimension, key FROM search_index_audience_keys ORDER BY code');
  const positions: number[][] = keys.map(() => []);
  const pcts: number[][] = keys.map(() => []);
  const seen = new Bitset(size);
  let seenFor = -1;
  await eachChunk(tx.connection, `SELECT k.code, r.pos, a.pct::DOUBLE FROM audience a
      JOIN search_index_rows r USING (creator_id) JOIN search_index_audience_keys k ON k.dimension = a.dimension AND k.key = a.key
      WHERE a.pct IS NOT NULL ORDER BY k.code, a.pct DESC, r.pos`, (chunk) => {
    const rows = chunk.rowCount;
    const k = chunk.getColumnVector(0);
    const p = chunk.getColumnVector(1);
    const v = chunk.getColumnVector(2);
    for (let i = 0; i < rows; i++) {
      const code = k.getItem(i) as number;
      const pos = p.getItem(i) as number;
      if (code !== seenFor) {
        // one key at a time (rows come by key): forget the previous key's creators
        for (const q of positions[seenFor] ?? []) seen.remove(q);
        seenFor = code;
      }
      // a creator listed twice for a key matches by its largest share, the first seen
      if (seen.has(pos)) continue;
      seen.add(pos);
      positions[code]!.push(pos);
      pcts[code]!.push(v.getItem(i) as number);
    }
  });
  const out = new Map<string, Map<string, AudienceShares>>();
  keys.forEach(({ dimension, key }, i) => {
    if (!out.has(dimension)) out.set(dimension, new Map());
    out.get(dimension)!.set(key, { positions: Int32Array.from(positions[i]!), pcts: Float64Array.from(pcts[i]!) });
  });
  return out;
}

/** Every position not in `set`, within its size. */
function complement(set: Bitset): Bitset {
  const out = new Bitset(set.size);
  for (let i = 0; i < out.words.length; i++) out.words[i] = ~set.words[i]!;
  const tail = set.size & 31;
  if (tail !== 0) out.words[out.words.length - 1]! &= (1 << tail) - 1;
  return out;
}
