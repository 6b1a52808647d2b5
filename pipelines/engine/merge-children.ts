import { hashtagsSql, mentionsSql } from '../../data/derive/caption-parse.js';
import { refitPrices } from '../../data/derive/pricing.js';
import { quoteIdent, sqlTimestamp } from '../../data/sql.js';
import type { Queryable } from '../../data/store.js';
import { valueColumns, type EntitySpec } from '../entities/entity.js';
import { ENTITIES } from '../entities/source-entities.js';
import { emitCampaignEvents, snapshotCampaignTotals } from './campaign-events.js';
import { emitCreatorEvents, snapshotCreators } from './creator-events.js';
import { recordPendingPostDerivation } from './pending-posts.js';
import { replaceFollowerSamples } from './merge-follower-samples.js';
import { countRows, deriveTouched, type MergeResult } from './merge-creators.js';

const VALID = 'SELECT * FROM stg_typed WHERE __err IS NULL';

/** Where a merge gets the time it runs at (what the posts kept are counted back from). */
export interface MergeContext {
  now: Date;
  /**
   * The run's id when the batch may leave its derivation to follow the commit (a
   * one-file run: a later file of the same transaction must see derived creators).
   * Posts use it (mergePosts); the other entities derive in the load.
   */
  deferRun?: string;
}

/**
 * Upserts rows on `key` (store column names): rows that are new or carry
 * different values go to `stg_changed` first, then update or insert from there.
 * `derived` columns are computed from the source's (an SQL expression over `s`)
 * for the changed rows only, and written like the others when `present` names them.
 * Answers the number of rows changed.
 */
async function upsert(
  tx: Queryable,
  table: string,
  key: readonly string[],
  allValues: readonly string[],
  present: ReadonlySet<string>,
  source = VALID,
  derived: Readonly<Record<string, string>> = {},
): Promise<number> {
  const t = quoteIdent(table);
  const on = key.map((k) => `t.${quoteIdent(k)} = s.${quoteIdent(k)}`).join(' AND ');
  // Updates touch only the columns the file has; new rows take every column (missing ones empty or default).
  const values = allValues.filter((v) => present.has(v));
  const differs = values
    .filter((v) => !(v in derived))
    .map((v) => `t.${quoteIdent(v)} IS DISTINCT FROM s.${quoteIdent(v)}`)
    .join(' OR ');
  const probe = quoteIdent(key[0] ?? 'creator_id');
  const computed = Object.entries(derived)
    .map(([name, sql]) => `${sql} AS ${quoteIdent(name)}, `)
    .join('');
  await tx.run(`CREATE OR REPLACE TEMP TABLE stg_changed AS
    SELECT s.*, ${computed}t.${probe} IS NULL AS __new FROM (${source}) s LEFT JOIN ${t} t ON ${on}
    WHERE t.${probe} IS NULL${differs ? ` OR ${differs}` : ''}`);
  if (values.length > 0) {
    await tx.run(`UPDATE ${t} t SET ${values.map((v) => `${quoteIdent(v)} = s.${quoteIdent(v)}`).join(', ')}
      FROM stg_changed s WHERE ${on} AND NOT s.__new`);
  }
  const cols = [...key, ...allValues].map(quoteIdent).join(', ');
  await tx.run(`INSERT INTO ${t} (${cols}) SELECT ${cols} FROM stg_changed WHERE __new`);
  return (await tx.one<{ n: number }>('SELECT count(*) AS n FROM stg_changed'))?.n ?? 0;
}

/**
 * Child rows change derived creator metrics: snapshot the creators the batch
 * names (and `alsoSql`'s, creators the write changes besides), write, re-derive
 * only those whose rows changed (`touchedSql`), emit their changes.
 */
async function withCreatorDerivation(
  tx: Queryable,
  ctx: MergeContext,
  write: () => Promise<number>,
  touchedSql: string,
  alsoSql?: string,
): Promise<MergeResult> {
  await tx.run(`CREATE OR REPLACE TEMP TABLE batch_creators AS SELECT DISTINCT creator_id FROM stg_typed WHERE __err IS NULL
    ${alsoSql ? `UNION ${alsoSql}` : ''}`);
  await snapshotCreators(tx, 'batch_creators');
  const changed = await write();
  await tx.run(`CREATE OR REPLACE TEMP TABLE touched_creators AS ${touchedSql}`);
  await deriveTouched(tx, ctx.now);
  return { changed, stale: 0, events: await emitCreatorEvents(tx) };
}

const CHANGED_CREATORS = 'SELECT DISTINCT creator_id FROM stg_changed';

/** Each entity's value columns, from its declaration (ENTITIES). */
const METRICS = valueColumns(ENTITIES.campaign_metrics);

/** Writes one non-creator entity's valid rows by its disposition; answers rows changed and events emitted. */
export async function mergeChild(
  tx: Queryable,
  spec: EntitySpec,
  present: ReadonlySet<string>,
  ctx: MergeContext,
): Promise<MergeResult> {
  switch (spec.name) {
    case 'follower_history':
      return withCreatorDerivation(
        tx,
        ctx,
        () => upsert(tx, 'follower_history', ['creator_id', 'date'], valueColumns(spec), present),
        CHANGED_CREATORS,
      );
    case 'posts':
      return mergePosts(tx, spec, present, ctx);
    case 'creator_contacts':
      return withCreatorDerivation(
        tx,
        ctx,
        () => upsert(tx, 'creator_contacts', ['creator_id'], valueColumns(spec), present),
        CHANGED_CREATORS,
      );
    case 'linked_accounts':
      return withCreatorDerivation(
        tx,
        ctx,
        () => upsert(tx, 'linked_accounts', ['creator_id', 'linked_platform', 'linked_handle'], [], present),
        CHANGED_CREATORS,
      );
    case 'audience': {
      const merged = await withCreatorDerivation(
        tx,
        ctx,
        () => replaceAudience(tx),
        'SELECT DISTINCT creator_id FROM aud_groups',
      );
      // a dimension older than the stored one was left out of aud_groups: its rows are stale
      return {
        ...merged,
        stale: await countRows(
          tx,
          `stg_typed s WHERE s.__err IS NULL
        AND NOT EXISTS (SELECT 1 FROM aud_groups g WHERE g.creator_id = s.creator_id AND g.dimension = s.dimension)`,
        ),
      };
    }
    case 'campaigns': {
      const stale = await countRows(
        tx,
        'stg_typed s JOIN campaigns t USING (campaign_id) WHERE s.__err IS NULL AND s.updated_at < t.updated_at',
      );
      const changed = await mergeCampaigns(tx, present);
      // any change may complete a campaign, or undo one
      await refitWhenPriced(tx, changed, null);
      return { changed, stale, events: 0 };
    }
    case 'campaign_creators': {
      const changed = await appendCampaignCreators(tx);
      await refitWhenPriced(tx, changed, 'SELECT campaign_id FROM stg_typed WHERE __err IS NULL AND posts > 0');
      return { changed, stale: 0, events: 0 };
    }
    case 'campaign_metrics': {
      await snapshotCampaignTotals(tx);
      const changed = await upsert(
        tx,
        'campaign_metrics',
        ['campaign_id', 'date', 'creator_id'],
        METRICS,
        present,
        `SELECT * REPLACE (${METRICS.map((m) => `coalesce(${m}, 0) AS ${m}`).join(', ')}) FROM stg_typed WHERE __err IS NULL`,
      );
      await refitWhenPriced(tx, changed, 'SELECT campaign_id FROM stg_changed');
      return { changed, stale: 0, events: await emitCampaignEvents(tx) };
    }
    case 'follower_samples':
      return replaceFollowerSamples(tx, ctx.now);
    default:
      throw new Error(`no merge for ${spec.name}`);
  }
}

/**
 * Campaign rosters are appended: pairs not yet stored go in with their post
 * type and post count; a stored pair is left as it is (docs/data-formats.md).
 */
async function appendCampaignCreators(tx: Queryable): Promise<number> {
  return tx.run(`INSERT INTO campaign_creators (campaign_id, creator_id, post_type, posts)
    SELECT DISTINCT ON (campaign_id, creator_id) campaign_id, creator_id, post_type, posts FROM stg_typed s
    WHERE s.__err IS NULL
      AND NOT EXISTS (SELECT 1 FROM campaign_creators t WHERE t.campaign_id = s.campaign_id AND t.creator_id = s.creator_id)`);
}

/**
 * A load that changed the campaign data prices are read from refits the price
 * estimates in its own transaction (docs/pricing.md): a campaign's status, and
 * the rosters and spend of completed campaigns (`campaignsSql` names the
 * campaigns the load wrote; null: any change refits). Today's metrics of an
 * active campaign change no price, so the demo feed's minute-by-minute loads do not refit.
 */
async function refitWhenPriced(tx: Queryable, changed: number, campaignsSql: string | null): Promise<void> {
  if (changed === 0) return;
  const priced =
    campaignsSql === null ||
    (
      await tx.one<{ found: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM campaigns WHERE status = 'completed' AND campaign_id IN (${campaignsSql})) AS found`,
      )
    )?.found === true;
  if (priced) await refitPrices(tx);
}

/** Days of posts the store keeps, counted back from the load's time. */
export const POSTS_KEPT_DAYS = 365;

/**
 * Posts merge on (creator, post_id), their hashtags and mentions parsed from the
 * caption once (caption-parse.ts), for the rows that change. The store keeps
 * POSTS_KEPT_DAYS of posts: a file's older rows are not loaded (counted stale,
 * so an unchanged file changes nothing), and the stored older ones are deleted
 * in the same transaction, their creators re-derived and told about.
 *
 * With `deferRun` (a one-file run) the load commits the rows with their tags
 * unparsed (NULL) and records the creators they name (pending-posts.ts); the
 * parse, the derivation and the events follow the commit in a second
 * transaction, before the run returns: parsing every caption and re-deriving
 * their creators' content is most of a load's time, and DuckDB reads rows
 * written inside an open transaction at about half speed.
 */
async function mergePosts(
  tx: Queryable,
  spec: EntitySpec,
  present: ReadonlySet<string>,
  ctx: MergeContext,
): Promise<MergeResult> {
  const cutoff = `TIMESTAMP '${sqlTimestamp(ctx.now.getTime() - POSTS_KEPT_DAYS * 86_400_000)}'`;
  const stale = await countRows(tx, `stg_typed WHERE __err IS NULL AND posted_at < ${cutoff}`);
  await tx.run(
    `CREATE OR REPLACE TEMP TABLE pruned_creators AS SELECT DISTINCT creator_id FROM posts WHERE posted_at < ${cutoff}`,
  );
  const source = `SELECT * REPLACE (coalesce(sponsored, false) AS sponsored) FROM stg_typed WHERE __err IS NULL AND posted_at >= ${cutoff}`;
  // a file without captions leaves the stored caption, and so its tags, as they are
  const written = present.has('caption') ? new Set([...present, 'hashtags', 'mentions']) : present;
  if (ctx.deferRun !== undefined) {
    // pruned before the write: the delete then scans the stored posts only, not the batch written in this transaction
    await tx.run(`DELETE FROM posts WHERE posted_at < ${cutoff}`);
    const changed = await writePostsUnparsed(tx, spec, present, source);
    await tx.run('INSERT INTO batch_creators SELECT creator_id FROM pruned_creators');
    const deferred = await recordPendingPostDerivation(tx, ctx.deferRun, 'batch_creators', ctx.now);
    return { changed, stale, events: 0, deferredPosts: deferred };
  }
  const write = async (): Promise<number> => {
    const changed = await upsert(
      tx,
      'posts',
      ['creator_id', 'post_id'],
      [...valueColumns(spec), 'hashtags', 'mentions'],
      written,
      source,
      { hashtags: hashtagsSql('s.caption'), mentions: mentionsSql('s.caption') },
    );
    await tx.run(`DELETE FROM posts WHERE posted_at < ${cutoff}`);
    return changed;
  };
  const merged = await withCreatorDerivation(
    tx,
    ctx,
    write,
    `${CHANGED_CREATORS} UNION SELECT creator_id FROM pruned_creators`,
    'SELECT creator_id FROM pruned_creators',
  );
  return { ...merged, stale };
}

/**
 * Writes a deferred posts batch with its tags left NULL (the derivation after the
 * commit parses them) into `posts`, and the creators whose posts changed into
 * `batch_creators`. A batch that names no stored post, as a feed's new posts do,
 * is inserted straight from the typed rows; otherwise it is upserted, and the
 * rewritten rows' tags are cleared when the file has captions. Answers the rows changed.
 */
async function writePostsUnparsed(
  tx: Queryable,
  spec: EntitySpec,
  present: ReadonlySet<string>,
  source: string,
): Promise<number> {
  const on = 't.creator_id = s.creator_id AND t.post_id = s.post_id';
  if ((await countRows(tx, `(${source}) s SEMI JOIN posts t ON ${on}`)) === 0) {
    await tx.run(`CREATE OR REPLACE TEMP TABLE batch_creators AS SELECT DISTINCT creator_id FROM (${source})`);
    const cols = ['creator_id', 'post_id', ...valueColumns(spec)].map(quoteIdent).join(', ');
    return tx.run(`INSERT INTO posts (${cols}) SELECT ${cols} FROM (${source})`);
  }
  const changed = await upsert(tx, 'posts', ['creator_id', 'post_id'], valueColumns(spec), present, source);
  if (present.has('caption') && (await countRows(tx, 'stg_changed WHERE NOT __new')) > 0)
    await tx.run(`UPDATE posts t SET hashtags = NULL, mentions = NULL FROM stg_changed s WHERE ${on} AND NOT s.__new`);
  await tx.run(`CREATE OR REPLACE TEMP TABLE batch_creators AS ${CHANGED_CREATORS}`);
  return changed;
}

/**
 * An audience dimension is a snapshot: a batch replaces a creator's whole
 * dimension when its `as_of` is not older than the stored one; an older batch is ignored.
 */
async function replaceAudience(tx: Queryable): Promise<number> {
  await tx.run(`CREATE OR REPLACE TEMP TABLE aud_groups AS
    SELECT s.creator_id, s.dimension FROM (SELECT creator_id, dimension, max(as_of) AS as_of FROM stg_typed WHERE __err IS NULL GROUP BY ALL) s
    LEFT JOIN (SELECT creator_id, dimension, max(as_of) AS as_of FROM audience GROUP BY ALL) a USING (creator_id, dimension)
    WHERE a.as_of IS NULL OR s.as_of >= a.as_of`);
  await tx.run(
    `DELETE FROM audience a USING aud_groups g WHERE a.creator_id = g.creator_id AND a.dimension = g.dimension`,
  );
  return tx.run(`INSERT INTO audience (creator_id, dimension, key, pct, as_of)
    SELECT s.creator_id, s.dimension, s.key, s.pct, s.as_of FROM stg_typed s
    SEMI JOIN aud_groups g ON g.creator_id = s.creator_id AND g.dimension = s.dimension
    WHERE s.__err IS NULL`);
}

/** Campaigns merge on campaign_id; a stored campaign is only overwritten by a newer `updated_at`. */
async function mergeCampaigns(tx: Queryable, present: ReadonlySet<string>): Promise<number> {
  const cols = valueColumns(ENTITIES.campaigns);
  const updated = cols.filter((c) => present.has(c));
  const source = `SELECT * REPLACE (coalesce(currency, 'USD') AS currency) FROM stg_typed WHERE __err IS NULL`;
  const changed =
    await tx.run(`UPDATE campaigns t SET ${updated.map((c) => `${quoteIdent(c)} = s.${quoteIdent(c)}`).join(', ')}
    FROM (${source}) s WHERE t.campaign_id = s.campaign_id AND s.updated_at > t.updated_at`);
  const inserted = await tx.run(`INSERT INTO campaigns (campaign_id, ${cols.map(quoteIdent).join(', ')})
    SELECT campaign_id, ${cols.map(quoteIdent).join(', ')} FROM (${source}) s
    WHERE NOT EXISTS (SELECT 1 FROM campaigns t WHERE t.campaign_id = s.campaign_id)`);
  return changed + inserted;
}
