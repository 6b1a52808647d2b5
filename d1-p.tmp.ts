import { Store } from './data/store.js';
const s = await Store.open('/tmp/d1-bench-1m/cds.duckdb', { threads: 2, memoryLimit: '256MB' });
const t = async (label: string, sql: string) => { const st = performance.now(); try { await s.run(sql); console.log(label, ((performance.now()-st)/1000).toFixed(2), 'maxrss', Math.round(process.resourceUsage().maxRSS/1024)); } catch (e) { console.log(label, 'ERR', (e as Error).message.slice(0, 100)); } };
const mode = process.argv[2];
if (mode === 'build') await t('build', `CREATE OR REPLACE TABLE d1_aud_top AS SELECT creator_id,
  list(key ORDER BY rn) FILTER (WHERE dimension='country') AS country_keys, list(pct ORDER BY rn) FILTER (WHERE dimension='country') AS country_pcts,
  list(key ORDER BY rn) FILTER (WHERE dimension='age') AS age_keys, list(pct ORDER BY rn) FILTER (WHERE dimension='age') AS age_pcts,
  max(pct) FILTER (WHERE dimension='gender' AND key='female') AS gender_female
  FROM (SELECT creator_id, dimension, key, pct, row_number() OVER (PARTITION BY creator_id, dimension ORDER BY pct DESC, key) rn FROM audience WHERE dimension IN ('country','age','gender'))
  WHERE rn <= 3 OR dimension = 'gender' GROUP BY creator_id`);
if (mode === 'build2') await t('build2', `CREATE OR REPLACE TABLE d1_aud_top2 AS SELECT creator_id, dimension, key, pct, rn FROM (SELECT creator_id, dimension, key, pct, row_number() OVER (PARTITION BY creator_id, dimension ORDER BY pct DESC, key) rn FROM audience WHERE dimension IN ('country','age','gender')) WHERE rn <= 3`);
if (mode === 'plain') await t('plain', `COPY (SELECT handle, platform, display_name, niche, country, city, language, followers, following, posts_count, verified, engagement_rate, avg_likes, avg_comments, avg_views, growth_30d_pct, audience_us_pct, authenticity_score, updated_at FROM creators) TO '/tmp/d1-x.out' (FORMAT csv)`);
if (mode === 'join') await t('join', `COPY (SELECT c.handle, c.platform, c.display_name, c.niche, c.country, c.city, c.language, c.followers, c.following, c.posts_count, c.verified, c.engagement_rate, c.avg_likes, c.avg_comments, c.avg_views, c.growth_30d_pct, c.audience_us_pct, c.authenticity_score, c.updated_at, a.country_keys[1], a.country_pcts[1], a.country_keys[2], a.country_pcts[2], a.country_keys[3], a.country_pcts[3], a.age_keys[1], a.age_pcts[1], a.gender_female FROM creators c LEFT JOIN d1_aud_top a ON a.creator_id = c.creator_id ORDER BY c.followers DESC, c.creator_id) TO '/tmp/d1-x.out' (FORMAT csv)`);
await s.close();
