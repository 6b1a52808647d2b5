import { rewriteSketches } from '../audience-overlap/follower-sketch.queries.js';
import type { Queryable } from '../store.js';

/**
 * How many demo creators get a follower sample (all of them in a world this small
 * or smaller), spread evenly. Samples are millions of rows: one for each of the
 * default demo's 50,000 creators would add about a minute to its seed.
 */
export const DEMO_SAMPLED_CREATORS = 1_000;

/** A sample holds 1,000–3,000 ids, never more than the creator's follower count. */
const SAMPLE_FROM = 1_000;
const SAMPLE_SPREAD = 2_000;

/**
 * Follower samples of the demo creators, drawn from follower communities
 * (docs/audience-overlap.md): each (niche, country) pair has a community of
 * 3,000–30,000 people, each niche a pool of 100,000 across countries, and the
 * platform a general public of 2,000,000. A creator draws a share of 15–90 % of
 * its sample from its community, part of the rest from its niche's pool and the
 * rest from the public. Pairs of one community share 5 % of their samples on
 * average and up to two thirds; pairs of different niches and countries almost
 * none. Ids are per platform (a follower on one platform is another account on
 * the next). Deterministic: every draw is `rnd` of the seed, and each block
 * walks its pool with a per-creator prime stride, so no id repeats in a sample.
 * The sketches are written from the samples as a load writes them.
 */
export async function seedFollowerSamples(c: Queryable, now: Date): Promise<void> {
  await c.run(
    `CREATE OR REPLACE TEMP TABLE fs_gen AS
    WITH f AS (
      SELECT g.creator_id, left(cr.platform, 2) AS prefix,
        least(g.followers, ${SAMPLE_FROM} + floor(${SAMPLE_SPREAD} * rnd(g.creator_id, 'fs_n')))::BIGINT AS n,
        0.15 + 0.75 * rnd(g.creator_id, 'fs_community') AS a, 0.6 * rnd(g.creator_id, 'fs_niche') AS b,
        hash(g.niche, g.country) % 10000 AS community,
        3000 + floor(27000 * rnd(hash(g.niche, g.country), 'fs_pool'))::BIGINT AS pool,
        hash(g.niche) % 1000 AS niche_pool,
        pick($1::BIGINT[], rnd(g.creator_id, 'fs_stride')) AS stride,
        floor(2000000 * rnd(g.creator_id, 'fs_offset'))::BIGINT AS start
      FROM gen g JOIN creators cr USING (creator_id)
      WHERE rnd(g.creator_id, 'fs_sampled') < ${DEMO_SAMPLED_CREATORS} / getvariable('n_creators')
    )
    SELECT * EXCLUDE (b), n_community + round(b * (n - n_community))::BIGINT AS community_and_niche
    FROM (SELECT *, least(pool, round(a * n))::BIGINT AS n_community FROM f) ORDER BY creator_id`,
    [STRIDES],
  );
  await c.run(`INSERT INTO follower_samples (creator_id, follower_id)
    SELECT creator_id, prefix || CASE
        WHEN j < n_community THEN 5000000000 + community * 100000 + (start + j * stride) % pool
        WHEN j < community_and_niche THEN 3000000000 + niche_pool * 1000000 + (start + j * stride) % 100000
        ELSE (start + j * stride) % 2000000 END::VARCHAR
    FROM (SELECT f.*, unnest(range(f.n)) AS j FROM fs_gen f)`);
  await rewriteSketches(c, 'SELECT creator_id FROM fs_gen', now);
  await c.run('DROP TABLE fs_gen');
}

/**
 * Primes above every pool's size (so each walks its pool without repeating a position), drawn at random
 * so that their steps modulo the pools are large and unalike: two creators' walks meet about as often
 * as random draws would.
 */
const STRIDES = [
  933576481, 769380869, 130914761, 254837083, 656541937, 206758031, 866750693, 450888299, 551481743, 180348229,
  263141213, 661288541, 296532331, 152286817, 413257237, 171657601, 637049227, 439634353, 801531769, 172245457,
  315217499, 681318793, 890976707, 321068711, 426523151, 945410047, 299757373, 845171933, 577773199, 593675231,
  542978741, 249733301,
];
