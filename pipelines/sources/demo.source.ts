import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sqlString } from '../../data/sql.js';
import type { Store } from '../../data/store.js';
import {
  brandSql,
  captionBodySql,
  captionEndingSql,
  captionSql,
  FALLBACK_WORDS_SQL,
  languageWordsSql,
  nicheVocabularySql,
  postTypeSql,
  sponsorRateSql,
  type RandSql,
} from '../../data/seed/demo-captions.js';
import type { Batch, PipelineSource } from '../engine/pipeline.js';
import { singleUnitSource } from './single-unit.source.js';

/** Share of creators whose followers drift on each tick (1 in N). */
const DRIFT_ONE_IN = 200;
/** Share of creators that publish a post on each tick (1 in N). */
const POST_ONE_IN = 400;

/**
 * The demo source: on each tick, realistic updates to the stored data — follower
 * drift for a subset of creators (profile and today's history row), new posts,
 * and today's metrics of active campaigns growing — written as Parquet files and
 * loaded through the same path as any other file. The cursor is the tick time.
 */
export function demoSource(): PipelineSource {
  return singleUnitSource('demo', async (ctx) => {
    const tick = new Date();
    const dir = join(ctx.config.dataDir, 'demo-feed', tick.getTime().toString(36));
    await mkdir(dir, { recursive: true });
    const batches = await writeDemoFiles(ctx.store, dir, tick);
    return {
      source: 'demo',
      batches,
      dedupeByChecksum: false,
      cursor: tick.toISOString(),
      settle: async () => rm(dir, { recursive: true, force: true }),
    };
  });
}

async function writeDemoFiles(store: Store, dir: string, tick: Date): Promise<Batch[]> {
  const salt = tick.getTime();
  const now = tick.toISOString().replace('Z', '');
  const files = {
    creators: join(dir, 'creators.parquet'),
    history: join(dir, 'follower_history.parquet'),
    posts: join(dir, 'posts.parquet'),
    metrics: join(dir, 'campaign_metrics.parquet'),
  };
  await store.run(
    `COPY (
      SELECT platform, handle, display_name, bio, niche, country, city, language,
        greatest(0, followers + round(followers * ((hash(creator_id, $1::BIGINT, 'drift') % 1000) / 1000.0 - 0.4) * 0.01))::BIGINT AS followers,
        "following", posts_count, verified, $2::TIMESTAMP AS updated_at
      FROM creators WHERE hash(creator_id, $1::BIGINT) % ${DRIFT_ONE_IN} = 0
    ) TO ${sqlString(files.creators)} (FORMAT parquet)`,
    [salt, now],
  );
  await store.run(
    `COPY (SELECT platform, handle, $1::TIMESTAMP::DATE AS date, followers, "following" FROM read_parquet(${sqlString(files.creators)}))
    TO ${sqlString(files.history)} (FORMAT parquet)`,
    [now],
  );
  await store.run(`COPY (${demoPostsSql()}) TO ${sqlString(files.posts)} (FORMAT parquet)`, [salt, now]);
  await store.run(
    `COPY (
      SELECT cc.campaign_id, $2::TIMESTAMP::DATE AS date, cr.platform, cr.handle,
        coalesce(m.impressions, 0) + g.imp AS impressions, coalesce(m.reach, 0) + round(g.imp * 0.7)::BIGINT AS reach,
        coalesce(m.views, 0) + round(g.imp * 0.45)::BIGINT AS views, coalesce(m.likes, 0) + round(g.imp * 0.03)::BIGINT AS likes,
        coalesce(m.comments, 0) + round(g.imp * 0.001)::BIGINT AS comments, coalesce(m.shares, 0) + round(g.imp * 0.0005)::BIGINT AS shares,
        coalesce(m.saves, 0) + round(g.imp * 0.0008)::BIGINT AS saves, coalesce(m.clicks, 0) + round(g.imp * 0.008)::BIGINT AS clicks,
        coalesce(m.conversions, 0) + round(g.imp * 0.0006)::BIGINT AS conversions,
        round(coalesce(m.revenue, 0) + g.imp * 0.0006 * 48, 2) AS revenue, round(coalesce(m.spend, 0) + g.imp / 1000.0 * 9.5, 2) AS spend
      FROM campaign_creators cc
      JOIN campaigns cp ON cp.campaign_id = cc.campaign_id AND cp.status = 'active'
      JOIN creators cr ON cr.creator_id = cc.creator_id
      LEFT JOIN campaign_metrics m ON m.campaign_id = cc.campaign_id AND m.creator_id = cc.creator_id AND m.date = $2::TIMESTAMP::DATE
      CROSS JOIN LATERAL (SELECT (1 + round(cr.followers * 0.0005 * (hash(cc.campaign_id, cc.creator_id, $1::BIGINT) % 100) / 100.0))::BIGINT AS imp) g
    ) TO ${sqlString(files.metrics)} (FORMAT parquet)`,
    [salt, now],
  );
  return [
    { entity: 'creators', file: files.creators, format: 'parquet' },
    { entity: 'follower_history', file: files.history, format: 'parquet' },
    { entity: 'posts', file: files.posts, format: 'parquet' },
    { entity: 'campaign_metrics', file: files.metrics, format: 'parquet' },
  ];
}

/**
 * The tick's new posts (parameters: the tick's salt and time), written as the
 * seed writes its posts (demo-captions.ts): captions in the creator's language
 * with its niche's hashtags, mentions of other creators, sponsored posts with a
 * brand of the niche and mostly `#ad`. Their hashtags and mentions are parsed
 * when the file is loaded, like any file's. `oneIn`: the share of creators
 * that post (1 in N).
 */
export function demoPostsSql(oneIn = POST_ONE_IN): string {
  const rand: RandSql = (salt) => `((hash(k, 'cap.' || ${salt}) % 1000000007)::DOUBLE + 0.5) / 1000000007.0`;
  const body = captionBodySql(
    { tags: 'b.tags', words: `coalesce(w.words, ${FALLBACK_WORDS_SQL})`, tagShift: '0' },
    rand,
  );
  return `WITH p AS (
      SELECT c.*, m.max_id, hash(c.creator_id, $1::BIGINT) AS k,
        hash(c.creator_id, $1::BIGINT, 'sponsored') % 1000 / 1000.0
          < ${sponsorRateSql('c.followers', "hash(c.creator_id, 'sponsor_rate') % 1000 / 1000.0", "hash(c.creator_id, 'sponsor_rate2') % 1000 / 1000.0")} AS sponsored
      FROM creators c, (SELECT max(creator_id) AS max_id FROM creators) m WHERE hash(c.creator_id, $1::BIGINT, 'post') % ${oneIn} = 0
    ), b AS (
      SELECT p.*, v.tags, v.brands, ${brandSql('p.sponsored', 'v.brands', '(hash(p.creator_id) % 12)::BIGINT', rand)} AS brand, mc.handle AS mention
      FROM p JOIN (${nicheVocabularySql()}) v USING (niche)
        LEFT JOIN creators mc ON hash(p.k, 'mention') % 8 = 0 AND mc.creator_id = 1 + hash(p.k, 'mention_who') % p.max_id
    )
    SELECT b.platform, b.handle, 'demo-' || $1::BIGINT || '-' || b.creator_id AS post_id,
      $2::TIMESTAMP - INTERVAL (hash(b.creator_id, $1::BIGINT, 'm') % 50) MINUTE AS posted_at,
      ${postTypeSql('b.platform', rand("'type'"))} AS type,
      round(coalesce(b.avg_likes, b.followers * 0.02) * (0.5 + (hash(b.creator_id, $1::BIGINT, 'l') % 100) / 100.0))::BIGINT AS likes,
      round(coalesce(b.avg_comments, b.followers * 0.001) * (0.5 + (hash(b.creator_id, $1::BIGINT, 'c') % 100) / 100.0))::BIGINT AS comments,
      round(coalesce(b.avg_views, b.followers * 0.2))::BIGINT AS views, 0::BIGINT AS shares, b.sponsored,
      ${captionSql({ body, ending: captionEndingSql(rand), sponsored: 'b.sponsored', brand: 'b.brand', mention: 'b.mention' }, rand)} AS caption,
      b.brand
    FROM b LEFT JOIN (${languageWordsSql()}) w ON w.language = b.language`;
}
