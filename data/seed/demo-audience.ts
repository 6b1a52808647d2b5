import { AGE_RANGES } from '../creators/creator-taxonomy.js';
import type { Queryable } from '../store.js';
import { FARM_COUNTRIES, NICHE_FEMALE_SHARE, NICHE_INTERESTS } from './reference-data.js';

/** Each platform's typical audience age mix (percent), one weight per range of AGE_RANGES (docs/data-formats.md), in its order. */
const AGE_MIX: Record<string, number[]> = {
  tiktok: [22, 38, 22, 10, 5, 2, 1],
  instagram: [8, 32, 30, 16, 8, 4, 2],
  youtube: [10, 28, 27, 17, 10, 5, 3],
  x: [3, 20, 30, 22, 13, 8, 4],
  twitch: [15, 42, 27, 10, 4, 1, 1],
};

/**
 * Audience breakdowns consistent with each creator: most of the audience in the
 * creator's own country and language, the US next; bought followers bring a
 * block from follower-farm countries and a suspicious quality mix (a smaller one
 * for the subtle patterns); mass-follower accounts a large mass-follower share
 * (moderately raised for `moderate_mass`); engagement pods many influencer
 * followers; `audience_mismatch` an audience mostly from elsewhere. The legitimate
 * oddities of training worlds: a `global_audience` spread over many countries,
 * none dominant, speaking the creator's language widely; a `mass_audience` with a
 * raised mass-follower share; `multi_oddity` both; a `diaspora_audience` with
 * one more country holding 10–25 % of it and speaking the creator's language
 * (a diaspora, a neighbour). A world's wider spread also widens the minor
 * foreign shares. Creators
 * without audience data (`has_audience` false) get no rows at all.
 * Every dimension's shares sum to at most 100.
 */
export async function seedAudience(c: Queryable): Promise<void> {
  await defineAudienceRefs(c);
  // a world's wider spread of audience mixes (WorldParams.spread): exactly 0 in the standard world
  await c.run(`CREATE OR REPLACE TEMP MACRO spread_dev(k, salt, width) AS
    (getvariable('spread') - 1) * (rnd(k, salt) - 0.5) * width`);
  await c.run(
    `CREATE OR REPLACE TEMP TABLE aud_raw AS
    WITH p AS (
      SELECT g.*, CASE WHEN g.o_global THEN 8 + 17 * rnd(g.creator_id, 'own')
          ELSE greatest(3, CASE WHEN g.country = 'US' THEN 55 + 25 * rnd(g.creator_id, 'own') ELSE 35 + 30 * rnd(g.creator_id, 'own') END
            + spread_dev(g.creator_id, 'own_spread', 30)) END
          * CASE g.pattern WHEN 'bought_spike' THEN 0.55 WHEN 'audience_mismatch' THEN 1 - 0.7 * g.s
              WHEN 'small_spikes' THEN 1 - 0.15 * g.s ELSE 1 END AS own_share,
        CASE g.pattern WHEN 'bought_spike' THEN 25 + 20 * rnd(g.creator_id, 'farm')
          WHEN 'audience_mismatch' THEN (30 + 15 * rnd(g.creator_id, 'farm')) * g.s
          WHEN 'small_spikes' THEN (4 + 6 * rnd(g.creator_id, 'farm')) * g.s ELSE 0 END AS farm_share,
        -- a diaspora (or a neighbour sharing the language): one more country holding a large share of the audience
        CASE WHEN g.o_diaspora THEN 10 + 15 * rnd(g.creator_id, 'diaspora') ELSE 0 END AS diaspora_share
      FROM gen g WHERE g.has_audience
    )
    SELECT creator_id, 'country' AS dimension, country AS key, own_share AS pct FROM p
    UNION ALL SELECT creator_id, 'country', 'US', 5 + 15 * rnd(creator_id, 'us') FROM p WHERE country <> 'US'
    UNION ALL SELECT creator_id, 'country', pick(lut.countries, rnd(creator_id, 'c1')),
      greatest(1, 3 + 5 * rnd(creator_id, 'c1s') + spread_dev(creator_id, 'c1_spread', 6)) FROM p, lut
    UNION ALL SELECT creator_id, 'country', pick(lut.countries, rnd(creator_id, 'c2')),
      greatest(1, 2 + 3 * rnd(creator_id, 'c2s') + spread_dev(creator_id, 'c2_spread', 4)) FROM p, lut
    UNION ALL SELECT creator_id, 'country', pick(lut.countries, rnd(creator_id, 'dia')), diaspora_share FROM p, lut WHERE o_diaspora
    -- a global audience: many countries, none of them dominant
    UNION ALL SELECT creator_id, 'country', pick(lut.countries, rnd(creator_id, 'g' || n)), 4 + 6 * rnd(creator_id, 'gs' || n)
      FROM p, lut, range(4) t(n) WHERE o_global
    UNION ALL SELECT creator_id, 'country', pick($1::VARCHAR[], rnd(creator_id, 'f1')), farm_share * 0.6 FROM p WHERE farm_share > 0
    UNION ALL SELECT creator_id, 'country', pick($1::VARCHAR[], rnd(creator_id, 'f2')), farm_share * 0.4 FROM p WHERE farm_share > 0
    UNION ALL SELECT creator_id, 'city', city1, own_share * 0.30 FROM p
    UNION ALL SELECT creator_id, 'city', city2, own_share * 0.14 FROM p
    UNION ALL SELECT creator_id, 'city', city3, own_share * 0.08 FROM p
    UNION ALL SELECT p.creator_id, 'gender', 'female', least(95, greatest(5, nf.female + 9 * nrm(p.creator_id, 'gender'))) FROM p JOIN ref_niche_female nf USING (niche)
    UNION ALL SELECT creator_id, 'gender', 'other', 1 + 2 * rnd(creator_id, 'gother') FROM p
    UNION ALL SELECT p.creator_id, 'age', a.age_range, a.w * exp(0.2 * nrm(p.creator_id, 'age' || a.age_range)) FROM p JOIN ref_age_mix a USING (platform)
    UNION ALL SELECT creator_id, 'language', country_language,
      CASE WHEN o_global THEN 30 + 30 * rnd(creator_id, 'lang_global')
        ELSE least(90, own_share + diaspora_share + CASE WHEN pattern = 'audience_mismatch' THEN 0 ELSE 10 END) END FROM p
    UNION ALL SELECT creator_id, 'language', 'en', 15 + 15 * rnd(creator_id, 'en') FROM p WHERE country_language <> 'en'
    UNION ALL SELECT creator_id, 'language', pick(['es', 'pt', 'fr', 'de', 'hi', 'ar'], rnd(creator_id, 'l3')), 2 + 4 * rnd(creator_id, 'l3s') FROM p
    UNION ALL SELECT creator_id, 'interest', niche, 40 + 20 * rnd(creator_id, 'i0') FROM p
    UNION ALL SELECT p.creator_id, 'interest', ni.interest, 6 + 6 * rnd(p.creator_id, 'i' || ni.interest) FROM p JOIN ref_niche_interests ni USING (niche)
    UNION ALL SELECT creator_id, 'quality', 'influencers',
      CASE WHEN pattern = 'engagement_pod' THEN 2 + 4 * rnd(creator_id, 'qi') + (10 + 9 * rnd(creator_id, 'qi2')) * s
           ELSE greatest(0.5, 2 + 4 * rnd(creator_id, 'qi') + spread_dev(creator_id, 'qi_spread', 4)) END FROM p
    UNION ALL SELECT creator_id, 'quality', 'mass_followers',
      CASE pattern WHEN 'mass_followers' THEN 30 + 20 * rnd(creator_id, 'qm') WHEN 'bought_spike' THEN 8 + 7 * rnd(creator_id, 'qm')
           WHEN 'moderate_mass' THEN 4 + 8 * rnd(creator_id, 'qm') + (8 + 8 * rnd(creator_id, 'qm2')) * s
           WHEN 'mass_audience' THEN 12 + 14 * rnd(creator_id, 'qm') WHEN 'multi_oddity' THEN 10 + 12 * rnd(creator_id, 'qm')
           ELSE greatest(0.5, 4 + 8 * rnd(creator_id, 'qm') + spread_dev(creator_id, 'qm_spread', 8)) END FROM p
    UNION ALL SELECT creator_id, 'quality', 'suspicious',
      CASE pattern WHEN 'bought_spike' THEN 25 + 25 * rnd(creator_id, 'qs')
           WHEN 'slow_growth' THEN 4 + 9 * rnd(creator_id, 'qs') + (5 + 8 * rnd(creator_id, 'qs2')) * s
           WHEN 'small_spikes' THEN 4 + 9 * rnd(creator_id, 'qs') + (3 + 5 * rnd(creator_id, 'qs2')) * s
           WHEN 'follow_for_follow' THEN 4 + 9 * rnd(creator_id, 'qs') + (3 + 5 * rnd(creator_id, 'qs2')) * s
           ELSE greatest(0.5, 4 + 9 * rnd(creator_id, 'qs') + spread_dev(creator_id, 'qs_spread', 9)) END FROM p`,
    [[...FARM_COUNTRIES]],
  );
  await c.run(`INSERT INTO audience (creator_id, dimension, key, pct, as_of)
    WITH merged AS (
      SELECT creator_id, dimension, key, sum(pct) AS pct FROM aud_raw GROUP BY ALL
    ), completed AS (
      -- the remaining shares of two-way and closed dimensions: male, real
      SELECT * FROM merged
      UNION ALL SELECT creator_id, 'gender', 'male', 100 - sum(pct) FROM merged WHERE dimension = 'gender' GROUP BY creator_id
      UNION ALL SELECT creator_id, 'quality', 'real', 100 - sum(pct) FROM merged WHERE dimension = 'quality' GROUP BY creator_id
    ), scaled AS (
      SELECT *, sum(pct) OVER (PARTITION BY creator_id, dimension) AS total FROM completed
    )
    SELECT creator_id, dimension, key,
      round(pct * CASE WHEN dimension IN ('age') THEN 100 / total
                       WHEN total > 97 AND dimension NOT IN ('gender', 'quality') THEN 97 / total ELSE 1 END, 2),
      not_after_start(getvariable('as_of')::TIMESTAMP + INTERVAL 6 HOUR)
    FROM scaled
    ORDER BY creator_id`);
  await c.run('DROP TABLE aud_raw');
}

async function defineAudienceRefs(c: Queryable): Promise<void> {
  await c.run(
    `CREATE OR REPLACE TEMP TABLE ref_niche_female AS SELECT unnest($1::VARCHAR[]) AS niche, unnest($2::DOUBLE[]) AS female`,
    [Object.keys(NICHE_FEMALE_SHARE), Object.values(NICHE_FEMALE_SHARE)],
  );
  const interests = Object.entries(NICHE_INTERESTS).flatMap(([niche, list]) =>
    list.map((interest) => [niche, interest] as const),
  );
  await c.run(
    `CREATE OR REPLACE TEMP TABLE ref_niche_interests AS SELECT unnest($1::VARCHAR[]) AS niche, unnest($2::VARCHAR[]) AS interest`,
    [interests.map(([n]) => n), interests.map(([, i]) => i)],
  );
  const ages = Object.entries(AGE_MIX).flatMap(([platform, mix]) =>
    mix.map((w, i) => [platform, AGE_RANGES[i] ?? '', w] as const),
  );
  await c.run(
    `CREATE OR REPLACE TEMP TABLE ref_age_mix AS SELECT unnest($1::VARCHAR[]) AS platform,
      unnest($2::VARCHAR[]) AS age_range, unnest($3::DOUBLE[]) AS w`,
    [ages.map(([p]) => p), ages.map(([, a]) => a), ages.map(([, , w]) => w)],
  );
}
