// Input files for the fault drill, written with DuckDB's own COPY (fast, valid
// rows with a realistic spread), plus the deliberately broken ones.
import { writeFileSync } from 'node:fs';
import { NICHES, PLATFORMS } from '../data/seed/reference-data.js';
import { sqlString } from '../data/sql.js';
import { Store } from '../data/store.js';
import { call } from '../test/helpers/drill-kit.js';

const COUNTRIES = ['US', 'GB', 'IN', 'BR', 'MX', 'DE', 'FR', 'ES', 'JP', 'NG'];

/**
 * Creators `@fd<from>` … `@fd<to>` as CSV; `bump` adds to followers and `stamp`
 * is their updated_at (a later stamp makes them changes of the same creators).
 */
export async function writeCreatorsCsv(
  path: string,
  from: number,
  to: number,
  bump = 0,
  stamp = '2026-11-20 00:00:00',
): Promise<void> {
  const store = await Store.open(':memory:');
  try {
    await store.run(
      `COPY (
        SELECT (?::VARCHAR[])[1 + i % 5] AS platform, '@fd' || i AS handle, 'Drill ' || i AS display_name,
          'Fault drill creator ' || i AS bio, (?::VARCHAR[])[1 + (hash(i, 'n') % 20)::INTEGER] AS niche,
          (?::VARCHAR[])[1 + (hash(i, 'c') % 10)::INTEGER] AS country, 'City ' || (i % 300) AS city, 'en' AS language,
          (1000 + hash(i, 'f') % 2000000 + ?)::BIGINT AS followers, (hash(i, 'g') % 3000)::BIGINT AS "following",
          (hash(i, 'p') % 2000)::INTEGER AS posts_count, i % 11 = 0 AS verified, ?::TIMESTAMP AS updated_at
        FROM range(?, ? + 1) t(i)
      ) TO ${sqlString(path)} (HEADER)`,
      [[...PLATFORMS], [...NICHES], COUNTRIES, bump, stamp, from, to],
    );
  } finally {
    await store.close();
  }
}

/** A CSV of `rows` new creators of which every tenth has a bad follower count or niche. */
export function writeMixedCsv(path: string, from: number, rows: number): number {
  const lines = [
    'platform,handle,display_name,bio,niche,country,city,language,followers,following,posts_count,verified,updated_at',
  ];
  let bad = 0;
  for (let i = from; i < from + rows; i++) {
    const broken = (i - from) % 10 === 9;
    if (broken) bad++;
    const followers = broken && i % 2 === 0 ? 'lots' : String(5000 + i);
    const niche = broken && i % 2 === 1 ? 'not-a-niche' : 'tech';
    lines.push(`instagram,@fd${i},Mixed ${i},bio,${niche},US,Austin,en,${followers},10,5,false,2026-11-20 00:00:00`);
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
  return bad;
}

/** Bytes that are no CSV a reader can make sense of, and a "Parquet" file that is not one. */
export function writeCorruptFiles(csvPath: string, parquetPath: string): void {
  const junk = Buffer.alloc(64 * 1024);
  for (let i = 0; i < junk.length; i++) junk[i] = (i * 7919 + 13) % 256;
  writeFileSync(csvPath, Buffer.concat([Buffer.from('platform,handle,"unterminated\n'), junk]));
  writeFileSync(parquetPath, Buffer.concat([Buffer.from('PAR1'), junk]));
}

/** Total creators the API reports for an unfiltered search. */
export async function creatorCount(url: string, key: string): Promise<number> {
  const res = await call(url, key, 'GET', '/v1/creators/search?limit=1');
  return Number((res.body as { results?: number } | null)?.results ?? -1);
}

/** The most recent pipeline runs (admin scope). */
export async function recentRuns(url: string, key: string, limit = 20): Promise<Array<Record<string, unknown>>> {
  const res = await call(url, key, 'GET', `/v1/runs?limit=${limit}`);
  return (res.body as { data?: Array<Record<string, unknown>> } | null)?.data ?? [];
}
