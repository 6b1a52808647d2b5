import { hashtagsSql, mentionsSql } from '../derive/caption-parse.js';
import { sqlString } from '../sql.js';
import type { Queryable } from '../store.js';
import { CAPTION_LANGUAGES } from './content-vocabulary.js';
import {
  brandSql,
  captionBodySql,
  captionEndingSql,
  captionHasBodySql,
  captionSql,
  captionSuffixSql,
  postTypeSql,
  sponsorRateSql,
  type RandSql,
} from './demo-captions.js';

/** Posts generated per creator (about three months of posting). */
export const POSTS_PER_CREATOR = 24;

/** Caption bodies per niche and language in the seed's bank, in blocks that each favour other tags of the niche. */
const BANK_BLOCKS = 10;
const BANK_BLOCK_SIZE = 40;

/**
 * Caption bodies (words and hashtags) for every niche and caption language,
 * BANK_BLOCKS × BANK_BLOCK_SIZE each: a post takes one from its creator's block
 * and adds its own mention, brand and `#ad` — a fraction of the cost of
 * composing 24 bodies per creator word by word.
 */
async function generateCaptionBank(c: Queryable): Promise<void> {
  const rand: RandSql = (salt) => `rnd(k, 'bank.' || ${salt})`;
  await c.run(`CREATE OR REPLACE TEMP TABLE caption_bank AS
    WITH b AS (
      SELECT v.niche, w.language, i AS idx, hash(v.niche, w.language, i) AS k, v.tags, w.words, i // ${BANK_BLOCK_SIZE} AS tag_shift
      FROM ref_niche_vocabulary v, ref_caption_words w, range(${BANK_BLOCKS * BANK_BLOCK_SIZE}) r(i)
    )
    SELECT *, ${hashtagsSql('body')} AS body_tags, ${mentionsSql('body')} AS body_mentions FROM (
      SELECT niche, language, idx, ${captionBodySql({ tags: 'tags', words: 'words', tagShift: 'tag_shift' }, rand)} AS body,
        ${captionEndingSql(rand)} AS ending
      FROM b)`);
}

/**
 * Recent posts, from the seed's temp tables (`gen`, the reference tables and
 * macros demo-generator.ts defines): about one every 3.75 days; each viral post (viral_js) falls on
 * its jump day with outsized reach. Likes follow the creator's organic growth
 * back in time, so engagement tracks earned followers but not bought ones.
 * Captions, brands and types come from demo-captions.ts (the demo feed writes
 * the same); hashtags and mentions are parsed as the loader does (caption-parse.ts), from
 * the bank's bodies once and each post's own suffix.
 */
export async function generatePosts(c: Queryable): Promise<void> {
  await generateCaptionBank(c);
  const rand: RandSql = (salt) => `rnd(k, 'cap.' || ${salt})`;
  await c.run(`INSERT INTO posts (creator_id, post_id, posted_at, type, likes, comments, views, shares, sponsored, caption, brand, hashtags, mentions)
    WITH slots AS (
      SELECT g.*, unnest(range(${POSTS_PER_CREATOR}))::INTEGER AS j,
        ${sponsorRateSql('g.followers', "rnd(g.creator_id, 'sponsor_rate')", "rnd(g.creator_id, 'sponsor_rate2')")} AS sponsor_rate,
        floor(pow(rnd(g.creator_id, 'bank_block'), 2) * ${BANK_BLOCKS})::BIGINT * ${BANK_BLOCK_SIZE} AS bank_block,
        floor(rnd(g.creator_id, 'brand_shift') * 12)::BIGINT AS brand_shift,
        CASE WHEN cr.language IN (${CAPTION_LANGUAGES.map(sqlString).join(', ')}) THEN cr.language ELSE 'en' END AS caption_language
      FROM gen g JOIN creators cr USING (creator_id)
    ), s AS (
      SELECT *, creator_id * ${POSTS_PER_CREATOR} + j AS k, list_contains(viral_js, j) AS is_viral,
        CASE WHEN list_contains(viral_js, j) THEN getvariable('viral_boost') ELSE 1.0 END AS boost
      FROM slots
    ), l AS (
      SELECT *, followers * er / 100.0 * likes_per_comment / (likes_per_comment + 1)
        * exp(0.35 * nrm(k, 'l') - growth * j * 3.75 / 365.0) * boost AS likes,
        rnd(k, 'sponsored') < sponsor_rate AS sponsored,
        CASE WHEN rnd(k, 'mention') < 0.12 THEN 1 + floor(rnd(k, 'mention_who') * getvariable('n_creators'))::BIGINT END AS mention_id,
        bank_block + floor(rnd(k, 'bank') * ${BANK_BLOCK_SIZE})::BIGINT AS bank_idx
      FROM s
    ), b AS (
      SELECT l.*, cb.body, cb.ending, cb.body_tags, cb.body_mentions, mc.handle AS mention,
        ${brandSql('l.sponsored', 'v.brands', 'l.brand_shift', rand)} AS brand
      FROM l JOIN ref_niche_vocabulary v USING (niche)
        JOIN caption_bank cb ON cb.niche = l.niche AND cb.idx = l.bank_idx AND cb.language = l.caption_language
        LEFT JOIN creators mc ON mc.creator_id = l.mention_id
    ), f AS (
      SELECT *, ${captionSuffixSql({ sponsored: 'sponsored', brand: 'brand', mention: 'mention' }, rand)} AS suffix, ${captionHasBodySql(rand)} AS has_body
      FROM b
    ), p AS (
      SELECT *, ${captionSql({ body: 'body', ending: 'ending', sponsored: 'sponsored', brand: 'brand', mention: 'mention', suffix: 'suffix' }, rand)} AS caption,
        -- the caption's tags and mentions are its body's (parsed once in the bank) and its suffix's: the ending holds neither
        CASE WHEN has_body THEN list_sort(list_distinct(body_tags || ${hashtagsSql('suffix')})) ELSE [] END AS hashtags,
        CASE WHEN has_body THEN list_sort(list_distinct(body_mentions || ${mentionsSql('suffix')})) ELSE [] END AS mentions
      FROM f
    )
    SELECT creator_id, platform || '_' || creator_id::VARCHAR || '_' || j::VARCHAR,
      not_after_start(CASE WHEN is_viral
           THEN (getvariable('as_of') - floor(3.75 * j + 0.75)::INTEGER)::TIMESTAMP + INTERVAL 14 HOUR
           ELSE getvariable('as_of')::TIMESTAMP - to_seconds((j * 3.75 + rnd(k, 'at') * 1.5) * 86400)::INTERVAL END),
      ${postTypeSql('platform', "rnd(k, 'type')")},
      round(likes)::BIGINT,
      round(likes / likes_per_comment * exp(0.25 * nrm(k, 'c')))::BIGINT,
      round(followers * view_rate * exp(0.4 * nrm(k, 'v')) * boost * views_boost)::BIGINT,
      round(likes * 0.04 * exp(0.5 * nrm(k, 's')))::BIGINT,
      sponsored, caption, brand, hashtags, mentions
    -- in creator order, as the other seeded tables, so zone maps prune a creator's posts
    FROM p ORDER BY creator_id`);
  await c.run('DROP TABLE caption_bank');
}
