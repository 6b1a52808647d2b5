import { hashtagsSql, mentionsSql } from '../derive/caption-parse.js';
import type { Queryable } from '../store.js';
import { FALLBACK_WORDS_SQL } from './demo-captions.js';

/** At most this many persona groups; fewer in a small world (one per 40 creators). */
export const PERSONA_GROUPS_MAX = 300;
/** A group holds 2–5 creators. */
const GROUP_SPAN = 5;
/** Each persona's hashtags: a slice of its niche's list, past the few tags every creator of the niche uses. */
const PERSONA_TAGS = 6;
const TAG_HEAD = 8;
/** Each persona's caption words: a slice of its language's words. */
const PERSONA_WORDS = 10;

/**
 * Plants persona groups in the demo world, so lookalike quality can be
 * measured (docs/lookalikes.md): a few hundred groups of 2–5 ordinary
 * creators of the same niche and country, made from one persona each. The
 * group's first creator keeps its audience and the others take it over with
 * a little noise (shares × 0.9–1.0, so every dimension still sums to at most
 * 100); every post of the group is rewritten from the persona's vocabulary:
 * its niche's most used hashtag and a slice of the others, a slice of its
 * language's words and two creators it mentions. Ground truth goes to `creator_personas`. Runs in the
 * seed's connection after the posts and the audience, before the derivations.
 */
export async function plantPersonas(c: Queryable): Promise<void> {
  await c.run(`CREATE OR REPLACE TEMP TABLE persona_members AS
    WITH e AS (
      SELECT g.creator_id, g.niche, g.country,
        row_number() OVER (PARTITION BY g.niche, g.country ORDER BY hash(g.creator_id, 'persona', getvariable('seed')), g.creator_id) - 1 AS rn
      FROM gen g WHERE g.has_audience AND g.pattern = 'ordinary'
    ), chunked AS (
      SELECT *, rn // ${GROUP_SPAN} AS chunk, count(*) OVER (PARTITION BY niche, country, rn // ${GROUP_SPAN}) AS chunk_n FROM e
    ), chosen AS (
      SELECT niche, country, chunk, chunk_n,
        row_number() OVER (ORDER BY hash(niche, country, chunk, getvariable('seed')), niche, country, chunk) AS persona
      FROM (SELECT DISTINCT niche, country, chunk, chunk_n FROM chunked WHERE chunk_n >= 2)
    )
    SELECT k.creator_id, ch.persona, k.rn % ${GROUP_SPAN} AS member
    FROM chunked k JOIN chosen ch USING (niche, country, chunk)
    WHERE ch.persona <= least(${PERSONA_GROUPS_MAX}, greatest(1, getvariable('n_creators') // 40))
      AND k.rn % ${GROUP_SPAN} < least(ch.chunk_n, (2 + hash(ch.persona, 'persona_size', getvariable('seed')) % 4)::BIGINT)`);
  await c.run(`INSERT INTO creator_personas (creator_id, persona) SELECT creator_id, persona FROM persona_members`);
  await c.run(`CREATE OR REPLACE TEMP TABLE persona_vocabulary AS
    SELECT m.persona, v.tags, coalesce(w.words, ${FALLBACK_WORDS_SQL}) AS words,
      (${TAG_HEAD} + hash(m.persona, 'persona_tags', getvariable('seed')) % greatest(1, len(v.tags) - ${TAG_HEAD} - ${PERSONA_TAGS}))::BIGINT AS tag_from,
      (hash(m.persona, 'persona_words', getvariable('seed')) % greatest(1, len(coalesce(w.words, ${FALLBACK_WORDS_SQL})) - ${PERSONA_WORDS}))::BIGINT AS word_from,
      [(SELECT handle FROM creators WHERE creator_id = (1 + hash(m.persona, 'persona_m1', getvariable('seed')) % getvariable('n_creators'))::BIGINT),
       (SELECT handle FROM creators WHERE creator_id = (1 + hash(m.persona, 'persona_m2', getvariable('seed')) % getvariable('n_creators'))::BIGINT)] AS friends
    FROM persona_members m JOIN creators cr USING (creator_id)
      JOIN ref_niche_vocabulary v ON v.niche = cr.niche
      LEFT JOIN ref_caption_words w ON w.language = cr.language
    WHERE m.member = 0`);
  await rewritePosts(c);
  await copyAudience(c);
  await c.run('DROP TABLE persona_members');
  await c.run('DROP TABLE persona_vocabulary');
}

/** Every post of a persona's creators gets a caption from the persona's vocabulary (its brand and #ad kept). */
async function rewritePosts(c: Queryable): Promise<void> {
  const pick = (list: string, from: string, span: number, salt: string): string =>
    `${list}[(1 + (${from} + floor(rnd(p.post_id, ${salt}) * ${span})::BIGINT) % len(${list}))::BIGINT]`;
  const words = `array_to_string(list_transform(range(3 + floor(rnd(p.post_id, 'pw') * 6)::BIGINT),
      i -> ${pick('v.words', 'v.word_from', PERSONA_WORDS, "'pw' || i")}), ' ')`;
  const tags = `array_to_string(list_transform(range(2 + floor(rnd(p.post_id, 'pt') * 3)::BIGINT),
      i -> '#' || ${pick('v.tags', 'v.tag_from', PERSONA_TAGS, "'pt' || i")}), ' ')`;
  // the niche's most used tag too, as on most posts of the niche
  await c.run(`CREATE OR REPLACE TEMP TABLE persona_posts AS
    SELECT p.post_id, concat_ws(' ', ${words}, '#' || v.tags[1], ${tags},
        CASE WHEN rnd(p.post_id, 'pm') < 0.5 THEN v.friends[1 + floor(rnd(p.post_id, 'pmw') * 2)::BIGINT] END,
        p.brand, CASE WHEN p.sponsored THEN '#ad' END) AS caption
    FROM posts p JOIN persona_members m USING (creator_id) JOIN persona_vocabulary v USING (persona)`);
  await c.run(`UPDATE posts SET caption = pp.caption, hashtags = ${hashtagsSql('pp.caption')}, mentions = ${mentionsSql('pp.caption')}
    FROM persona_posts pp WHERE posts.post_id = pp.post_id`);
  await c.run('DROP TABLE persona_posts');
}

/** The group's other creators take its first creator's audience (but cities and quality), each share × 0.9–1.0 and rescaled. */
async function copyAudience(c: Queryable): Promise<void> {
  const dims = `('country', 'age', 'gender', 'language', 'interest')`;
  await c.run(`DELETE FROM audience WHERE dimension IN ${dims}
    AND creator_id IN (SELECT creator_id FROM persona_members WHERE member > 0)`);
  // each share × 0.9–1.0, then the dimension scaled back to the first creator's total (age and gender stay at ~100)
  await c.run(`INSERT INTO audience (creator_id, dimension, key, pct, as_of)
    WITH j AS (
      SELECT m.creator_id, a.dimension, a.key, a.as_of, a.pct * (0.9 + 0.1 * rnd(m.creator_id, 'persona_aud' || a.dimension || a.key)) AS pct,
        sum(a.pct) OVER (PARTITION BY m.creator_id, a.dimension) AS total
      FROM persona_members m JOIN persona_members l ON l.persona = m.persona AND l.member = 0
        JOIN audience a ON a.creator_id = l.creator_id AND a.dimension IN ${dims}
      WHERE m.member > 0
    )
    SELECT creator_id, dimension, key, round(pct * total / sum(pct) OVER (PARTITION BY creator_id, dimension), 2), as_of FROM j
    ORDER BY creator_id`);
}
