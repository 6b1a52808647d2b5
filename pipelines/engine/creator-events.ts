import type { EntitySpec } from '../entities/entity.js';
import { ENTITIES } from '../entities/source-entities.js';
import { CREATOR_ITEM_COLUMNS } from '../../data/creators/creator-item.js';
import { newId } from '../../data/ids.js';
import { quoteIdent } from '../../data/sql.js';
import type { Queryable } from '../../data/store.js';
import { CONTENT_LISTS, contentJoin } from '../../data/derive/content-metrics.js';

/**
 * Creator fields a `creator.updated` event reports: the profile as loaded (the
 * creators entity's columns, pipelines/entities/source-entities.ts) plus the
 * derived figures a subscriber filters on. Day-to-day growth windows are
 * left out; they move with every history row and would make every load an event.
 * Of the content figures, the ones that say who the creator is and works with
 * are reported (hashtags, mentions, brands, linked platforms, whether a contact
 * is known, the sponsored share and engagement); the activity clock is not:
 * `last_posted_at` moves with every post and `posts_per_week` with the calendar
 * even when nothing was loaded, and `reels_avg_views`, like the other averages,
 * with every post.
 */
export const CREATOR_DIFF_FIELDS: readonly string[] = [
  ...loadedProfile(ENTITIES.creators),
  'engagement_rate',
  'audience_us_pct',
  'authenticity_score',
  'authenticity_verdict',
  'hashtags',
  'mentions',
  'brands',
  'linked_platforms',
  'has_contact',
  'sponsored_pct',
  'engagement_rate_sponsored',
  'engagement_rate_organic',
];

/** The profile as a creators file loads it: its columns but the key and the version (which moves with every load). */
function loadedProfile(entity: EntitySpec): string[] {
  const left = new Set([...entity.key, entity.versionColumn]);
  return entity.columns.map((c) => c.name).filter((name) => !left.has(name));
}

/**
 * List fields compare as sets: their order (most used first) shifts as counts
 * move without anything new, which is no news. A creator without a content row
 * has them empty; one not derived yet holds NULL `has_contact`, which means false.
 * Changes report the lists as they are stored, as JSON arrays.
 */
const LIST_FIELDS: ReadonlySet<string> = new Set(['hashtags', 'mentions', 'brands', 'linked_platforms']);

function reportedSql(field: string, alias: string): string {
  const col = `${alias}.${quoteIdent(field)}`;
  if (LIST_FIELDS.has(field)) return `coalesce(${col}, []::VARCHAR[])`;
  return field === 'has_contact' ? `coalesce(${col}, false)` : col;
}

/**
 * The WHERE of one field's diff. Lists are sorted only when they differ as
 * stored, the rare case: a CASE, since DuckDB need not cut an AND short, and
 * sorting both sides always made the diff of a million creators' hashtags
 * about 7x slower (27 s against 4 s, 30 tags each, on a loaded 2-core machine).
 */
function changedSql(field: string): string {
  const b = `b.${quoteIdent(field)}`;
  const c = `c.${quoteIdent(field)}`;
  if (LIST_FIELDS.has(field)) {
    return `CASE WHEN ${b} IS NOT DISTINCT FROM ${c} THEN false
      ELSE list_sort(${reportedSql(field, 'b')}) IS DISTINCT FROM list_sort(${reportedSql(field, 'c')}) END`;
  }
  return field === 'has_contact'
    ? `${reportedSql(field, 'b')} IS DISTINCT FROM ${reportedSql(field, 'c')}`
    : `${b} IS DISTINCT FROM ${c}`;
}

/** The reported fields of the creators `c` (the lists from their content row, data/derive/content-metrics.ts), and the join they need. */
const REPORTED = ((): { columns: string; join: string } => {
  const content = contentJoin(
    'c',
    CONTENT_LISTS.filter((l) => LIST_FIELDS.has(l)),
  );
  const scalars = CREATOR_DIFF_FIELDS.filter((f) => !LIST_FIELDS.has(f)).map((f) => `c.${quoteIdent(f)}`);
  return { columns: `${scalars.join(', ')}, ${content.columns}`, join: content.join };
})();

/** Keeps the reported fields of the creators in `ids_table` as they are now, in `creators_before`. */
export async function snapshotCreators(tx: Queryable, idsTable: string): Promise<void> {
  await tx.run(`CREATE OR REPLACE TEMP TABLE creators_before AS
    SELECT c.creator_id, ${REPORTED.columns} FROM creators c ${REPORTED.join}
    WHERE c.creator_id IN (SELECT creator_id FROM ${quoteIdent(idsTable)})`);
}

/** The Creator item (data/creators/creator-item.ts) built in SQL from a `creators` row aliased `c`. */
export function creatorItemJson(alias = 'c'): string {
  return `json_object(${CREATOR_ITEM_COLUMNS.map((col) => `'${col}', ${alias}.${quoteIdent(col)}`).join(', ')})`;
}

/**
 * Diffs `creators_before` against the store and writes one `creator.updated`
 * event per creator with a changed field: {platform, handle, changes: {field:
 * {from, to}}, creator: <Creator item>}. Answers the number of events.
 */
export async function emitCreatorEvents(tx: Queryable): Promise<number> {
  const before = (await tx.one<{ n: number }>('SELECT count(*) AS n FROM creators_before'))?.n ?? 0;
  if (before === 0) {
    await tx.run('CREATE OR REPLACE TEMP TABLE creator_changes AS SELECT NULL::INTEGER AS creator_id WHERE false');
    return 0;
  }
  // One join into a small table first, so each field's diff compares two small tables, not the whole store.
  await tx.run(`CREATE OR REPLACE TEMP TABLE creators_after AS
    SELECT c.creator_id, ${REPORTED.columns} FROM creators c ${REPORTED.join} SEMI JOIN creators_before b ON b.creator_id = c.creator_id`);
  const diffs = CREATOR_DIFF_FIELDS.map(
    (f) => `SELECT b.creator_id, '${f}' AS field, to_json(${reportedSql(f, 'b')}) AS f,
        to_json(${reportedSql(f, 'c')}) AS t
      FROM creators_before b JOIN creators_after c USING (creator_id) WHERE ${changedSql(f)}`,
  );
  await tx.run(`CREATE OR REPLACE TEMP TABLE creator_changes AS
    SELECT creator_id, json_group_object(field, json_object('from', f, 'to', t)) AS changes,
      row_number() OVER (ORDER BY creator_id) AS rn
    FROM (${diffs.join('\n    UNION ALL ')})
    GROUP BY creator_id`);
  const n = (await tx.one<{ n: number }>('SELECT count(*) AS n FROM creator_changes'))?.n ?? 0;
  if (n === 0) return 0;
  const ids = Array.from({ length: n }, () => newId('evt'));
  await tx.run(
    `INSERT INTO events (event_id, type, account_id, creator_id, payload)
    SELECT (?::VARCHAR[])[ch.rn], 'creator.updated', NULL, c.creator_id,
      json_object('platform', c.platform, 'handle', c.handle, 'changes', ch.changes, 'creator', ${creatorItemJson('c')})
    FROM creator_changes ch JOIN creators c USING (creator_id)`,
    [ids],
  );
  return n;
}
