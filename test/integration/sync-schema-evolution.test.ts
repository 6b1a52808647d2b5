import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FileFormat } from '../../connectors/files/config.js';
import type { Manifest } from '../../connectors/files/manifest.js';
import type { PostgresDestinationConfig } from '../../connectors/postgres/config.js';
import { runSync, type SyncOptions, type SyncRunResult } from '../../connectors/warehouse/runner.js';
import {
  SYNC_TABLE_NAMES,
  sourceRelation,
  SYNC_TABLES,
  type SyncTableName,
} from '../../connectors/warehouse/tables.js';
import { quoteIdent, sqlString } from '../../data/sql.js';
import { startTestPostgres, type TestPostgres } from '../helpers/postgres.js';
import { createTestStore, setContentLists, type TestStore } from '../helpers/store.js';

/**
 * A destination synced by the previous version (before posts carried captions and
 * creators their content columns, before contacts and linked accounts were tables),
 * then synced again after the store gained them: the new columns and tables arrive
 * with no manual step.
 */
let ts: TestStore;
let pg: TestPostgres;

/** The columns the store gained, in the order the migration adds them. */
const GAINED: Record<'creators' | 'posts', Array<[string, string]>> = {
  posts: [
    ['caption', 'VARCHAR'],
    ['brand', 'VARCHAR'],
    ['hashtags', 'VARCHAR[]'],
    ['mentions', 'VARCHAR[]'],
  ],
  // and the content lists, read from creator_content (see withoutContentLists)
  creators: [
    ['sponsored_posts', 'INTEGER'],
    ['sponsored_pct', 'DOUBLE'],
    ['engagement_rate_sponsored', 'DOUBLE'],
    ['engagement_rate_organic', 'DOUBLE'],
    ['posts_per_week', 'DOUBLE'],
    ['last_posted_at', 'TIMESTAMP'],
    ['reels_avg_views', 'DOUBLE'],
    ['has_contact', 'BOOLEAN'],
  ],
};

/**
 * Runs `fn` with creators and posts synced as the previous version synced them, from
 * their tables alone: creators' content lists (creator_content) did not exist yet, nor
 * did the posts' tags read through the caption parser.
 */
async function withoutContentLists(fn: () => Promise<void>): Promise<void> {
  const specs = [SYNC_TABLES.creators, SYNC_TABLES.posts] as Array<{ source?: string }>;
  const sources = specs.map((spec) => spec.source);
  for (const spec of specs) delete spec.source;
  try {
    await fn();
  } finally {
    specs.forEach((spec, i) => {
      spec.source = sources[i];
    });
  }
}
/** The tables the upgrade adds to a sync: the previous version synced every other one. */
const ADDED_TABLES: readonly SyncTableName[] = ['creator_contacts', 'linked_accounts'];
const OLD_TABLES = SYNC_TABLE_NAMES.filter((table) => !ADDED_TABLES.includes(table));
const NEW_TABLES: SyncTableName[] = ['creators', 'posts', ...ADDED_TABLES];

/** Items a list must carry through every encoding: separators, quotes, a backslash, braces, the word NULL, a NULL item. */
const AWKWARD = `['a,b', 'say "hi"', 'back\\slash', '{brace}', 'NULL', NULL, 'zoë 🎉', '']`;

let ids: { kept: number; changed: number };
const first: Record<string, SyncRunResult> = {};
const second: Record<string, SyncRunResult> = {};

const pgDestination = (): PostgresDestinationConfig => ({
  type: 'postgres',
  url: pg.url,
  schema: 'evo',
  connect_timeout_ms: 5000,
  copy_part_rows: 100_000,
});
const filesDestination = (format: FileFormat) => ({
  type: 'files' as const,
  path: join(ts.dir, `lake-${format}`),
  format,
});
const options = (): SyncOptions => ({
  workDir: join(ts.dir, 'sync-tmp'),
  retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
});
const manifestOf = (format: FileFormat): Manifest =>
  JSON.parse(readFileSync(join(ts.dir, `lake-${format}`, '_manifest.json'), 'utf8')) as Manifest;

async function syncAll(tables: SyncTableName[], into: Record<string, SyncRunResult>): Promise<void> {
  into['pg'] = await runSync(ts.store, 'evo-pg', { ...pgDestination(), tables }, options());
  for (const format of ['parquet', 'csv'] as const)
    into[format] = await runSync(ts.store, `evo-${format}`, { ...filesDestination(format), tables }, options());
  for (const result of Object.values(into)) expect(result.error).toBeNull();
}

beforeAll(async () => {
  [ts, pg] = await Promise.all([createTestStore({ creators: 40 }), startTestPostgres()]);
  const row = await ts.store.one<{ lo: number; hi: number }>(
    'SELECT min(creator_id) AS lo, max(creator_id) AS hi FROM creators',
  );
  ids = { kept: row?.lo ?? 0, changed: row?.hi ?? 0 };
  // The previous version's store: no new columns (the new tables are left out of the first sync).
  // DuckDB drops no column of a table with an index, so the test store loses its handle index.
  for (const { index_name: name } of await ts.store.all<{ index_name: string }>(
    `SELECT index_name FROM duckdb_indexes() WHERE table_name IN ('creators', 'posts')`,
  )) {
    await ts.store.run(`DROP INDEX ${quoteIdent(name)}`);
  }
  for (const [table, columns] of Object.entries(GAINED)) {
    for (const [name] of columns)
      await ts.store.run(`ALTER TABLE ${quoteIdent(table)} DROP COLUMN ${quoteIdent(name)}`);
  }
  await withoutContentLists(() => syncAll(OLD_TABLES, first));
  // The upgrade: the columns come back (appended, as the migration adds them) and are filled.
  for (const [table, columns] of Object.entries(GAINED)) {
    for (const [name, type] of columns)
      await ts.store.run(`ALTER TABLE ${quoteIdent(table)} ADD COLUMN ${quoteIdent(name)} ${type}`);
  }
  await ts.store.run('DELETE FROM creator_content');
  await ts.store.run('UPDATE creators SET has_contact = false');
  // One creator gains content without changing otherwise (its updated_at stays), one is also updated after the first sync.
  await ts.store.run('UPDATE creators SET sponsored_pct = 12.5, has_contact = true WHERE creator_id = ?', [ids.kept]);
  await setContentLists(ts.store, ids.kept, { hashtags: AWKWARD, brands: "['@nike']", linked_platforms: "['tiktok']" });
  await ts.store.run(
    'UPDATE creators SET followers = followers + 1, updated_at = updated_at + INTERVAL 1 DAY WHERE creator_id = ?',
    [ids.changed],
  );
  await setContentLists(ts.store, ids.changed, { mentions: "['nike', 'zoë']" });
  await ts.store.run(
    `INSERT INTO posts (creator_id, post_id, posted_at, type, likes, comments, views, shares, sponsored, caption, brand, hashtags, mentions)
    SELECT ?, 'evo-new-post', (SELECT max(posted_at) FROM posts) + INTERVAL 1 HOUR, 'reel', 10, 1, 100, 0, true,
      'New kit #ad #"quoted" @nike', '@nike', ['ad', 'quoted'], ['nike']`,
    [ids.changed],
  );
  await ts.store.run(
    `INSERT INTO creator_contacts VALUES (?, 'kept@example.com', NULL), (?, NULL, 'https://changed.example')`,
    [ids.kept, ids.changed],
  );
  await ts.store.run(`INSERT INTO linked_accounts VALUES (?, 'tiktok', '@kept_tt')`, [ids.kept]);
  await syncAll([...new Set([...OLD_TABLES, ...NEW_TABLES])], second);
}, 180_000);

afterAll(async () => {
  await Promise.all([pg?.cleanup(), ts?.cleanup()]);
});

async function storeRows(table: SyncTableName): Promise<Record<string, unknown>[]> {
  const spec = SYNC_TABLES[table];
  const exclude = spec.exclude.length > 0 ? ` EXCLUDE (${spec.exclude.map(quoteIdent).join(', ')})` : '';
  const rows = await ts.store.all<{
    j: string;
  }>(`SELECT CAST(to_json(t) AS VARCHAR) AS j FROM (SELECT *${exclude} FROM ${sourceRelation(spec)}) t
    ORDER BY ${spec.key.map((k) => `t.${quoteIdent(k)}`).join(', ')}`);
  return rows.map((r) => normalise(JSON.parse(r.j) as Record<string, unknown>));
}

/** Timestamps as the same text on both sides. */
const normalise = (row: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      typeof v === 'string' && /^\d{4}-\d{2}-\d{2} \d/.test(v) ? v.replace(' ', 'T') : v,
    ]),
  );

describe('a PostgreSQL destination synced by the previous version', () => {
  it('gains the new columns (lists as text[]) and the new tables on the next run', async () => {
    const columns = await pg.query<{ table_name: string; column_name: string; t: string }>(
      `SELECT table_name, column_name, format_type(atttypid, atttypmod) AS t FROM information_schema.columns c
       JOIN pg_attribute a ON a.attrelid = format('%I.%I', c.table_schema, c.table_name)::regclass AND a.attname = c.column_name
       WHERE table_schema = 'evo'`,
    );
    const type = (table: string, column: string) =>
      columns.find((c) => c.table_name === table && c.column_name === column)?.t;
    expect(type('creators', 'hashtags')).toBe('text[]');
    expect(type('creators', 'has_contact')).toBe('boolean');
    expect(type('posts', 'mentions')).toBe('text[]');
    expect(type('creators', 'caption_words')).toBeUndefined();
    expect(type('creator_contacts', 'email')).toBe('text');
    expect(type('linked_accounts', 'linked_handle')).toBe('text');
  });

  it('holds every row as the store has it: old rows kept, and filled in by the one-time re-send; lists item for item', async () => {
    for (const table of NEW_TABLES) {
      const spec = SYNC_TABLES[table];
      const rows = await pg.query<{ j: Record<string, unknown> }>(
        `SELECT to_jsonb(t) AS j FROM evo.${quoteIdent(table)} t ORDER BY ${spec.key.map((k) => `t.${quoteIdent(k)}`).join(', ')}`,
      );
      expect(
        rows.map((r) => normalise(r.j)),
        table,
      ).toEqual(await storeRows(table));
    }
    const kept = await pg.query<{ hashtags: string[] }>('SELECT hashtags FROM evo.creators WHERE creator_id = $1', [
      ids.kept,
    ]);
    expect(kept[0]?.hashtags).toEqual(['a,b', 'say "hi"', 'back\\slash', '{brace}', 'NULL', null, 'zoë 🎉', '']);
    const creators = second['pg']?.tables.find((t) => t.table === 'creators');
    expect(creators?.rows_read).toBe(40);
    expect(first['pg']?.tables.find((t) => t.table === 'creators')?.rows_read).toBe(40);
  });

  it('a further run changes nothing', async () => {
    const again = await runSync(ts.store, 'evo-pg', pgDestination(), options());
    expect(again.error).toBeNull();
    expect(again.rows_changed).toBe(0);
    expect(again.tables.find((t) => t.table === 'creators')?.rows_read).toBe(0);
  });
});

describe.each(['parquet', 'csv'] as const)('a %s files destination synced by the previous version', (format) => {
  const glob = (table: string) => sqlString(join(ts.dir, `lake-${format}`, table, '*', `*.${format}`));
  const read = (table: string) =>
    format === 'parquet'
      ? `read_parquet(${glob(table)}, hive_partitioning = true, union_by_name = true)`
      : `read_csv(${glob(table)}, hive_partitioning = true, header = true, union_by_name = true)`;

  it('appends the new columns to the manifest schema with a new schema version, keeping the older files as they were', async () => {
    const before = first[format] && manifestOf(format);
    const creators = before?.tables['creators'];
    expect(creators?.schema_version).toBe(2);
    expect(creators?.schema_changes?.map((c) => [c.version, c.added.map((a) => a.name)])).toEqual([
      [2, [...GAINED.creators.map(([n]) => n), 'hashtags', 'mentions', 'brands', 'linked_platforms']],
    ]);
    expect(creators?.schema.map((c) => c.name).slice(-3)).toEqual(['brands', 'linked_platforms', 'dt']);
    const versions = (creators?.files ?? []).map((f) => f.schema_version);
    expect(versions.filter((v) => v === 1).length).toBeGreaterThan(0);
    expect(versions.filter((v) => v === 2)).toHaveLength(1); // the one creator updated since
    expect(before?.tables['posts']?.schema_changes?.[0]?.added.map((a) => a.name)).toEqual([
      'caption',
      'brand',
      'hashtags',
      'mentions',
    ]);
    expect(Object.keys(before?.tables ?? {})).toEqual(expect.arrayContaining(['creator_contacts', 'linked_accounts']));
  });

  it('reads back, old and new files together by name: old rows without the new columns, new rows with their values', async () => {
    const rows = await ts.store.all<{ creator_id: number; n: number; hashtags: unknown; mentions: unknown }>(
      `SELECT creator_id, count(*) OVER (PARTITION BY creator_id) AS n, hashtags, mentions FROM ${read('creators')}
       WHERE creator_id IN (?, ?) ORDER BY creator_id, mentions NULLS FIRST`,
      [ids.kept, ids.changed],
    );
    const list = (v: unknown): unknown => (format === 'csv' && typeof v === 'string' ? JSON.parse(v) : v);
    // the kept creator: written once, by the previous version; the changed one: its old row and its new one
    expect(rows.map((r) => [r.creator_id, Number(r.n), list(r.hashtags), list(r.mentions)])).toEqual([
      [ids.kept, 1, null, null],
      [ids.changed, 2, null, null],
      [ids.changed, 2, [], ['nike', 'zoë']],
    ]);
    const post = await ts.store.one<{ caption: string; hashtags: unknown }>(
      `SELECT caption, hashtags FROM ${read('posts')} WHERE post_id = 'evo-new-post'`,
    );
    expect([post?.caption, list(post?.hashtags)]).toEqual(['New kit #ad #"quoted" @nike', ['ad', 'quoted']]);
    const contacts = await ts.store.all(
      `SELECT creator_id, email, website FROM ${read('creator_contacts')} ORDER BY creator_id`,
    );
    expect(contacts).toEqual(
      await ts.store.all('SELECT creator_id, email, website FROM creator_contacts ORDER BY creator_id'),
    );
  });
});

describe('a files destination whose columns were removed or retyped', () => {
  it('stops the run as a schema mismatch: only additive change is automatic', async () => {
    const path = join(ts.dir, 'lake-parquet', '_manifest.json');
    const manifest = manifestOf('parquet');
    const campaigns = manifest.tables['campaigns'];
    if (!campaigns) throw new Error('no campaigns in the manifest');
    // the folder says budget was text, and holds a column the store no longer has
    campaigns.schema = [
      ...campaigns.schema.map((c) => (c.name === 'budget' ? { ...c, type: 'VARCHAR' } : c)),
      { name: 'retired', type: 'INTEGER' },
    ];
    writeFileSync(path, JSON.stringify(manifest));
    await ts.store.run(
      `UPDATE campaigns SET updated_at = updated_at + INTERVAL 1 DAY WHERE campaign_id = (SELECT min(campaign_id) FROM campaigns)`,
    );
    const result = await runSync(
      ts.store,
      'evo-parquet',
      { ...filesDestination('parquet'), tables: ['campaigns'] },
      options(),
    );
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      /^campaigns: stopped: schema mismatch: campaigns in the destination folder has \(.*budget VARCHAR.*retired INTEGER.*\)/,
    );
  });
});
