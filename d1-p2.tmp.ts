import { Store } from './data/store.js';
const s = await Store.open('/tmp/d1-bench-1m/cds.duckdb', { threads: 2, memoryLimit: process.argv[3] ?? '256MB' });
const t = async (label: string, sql: string) => { const st = performance.now(); try { await s.run(sql); console.log(label, ((performance.now()-st)/1000).toFixed(2), 'maxrss', Math.round(process.resourceUsage().maxRSS/1024)); } catch (e) { console.log(label, 'ERR', (e as Error).message.slice(0, 100)); } };
const mode = process.argv[2];
const agg = `SELECT creator_id, arg_max(key, pct) FILTER (WHERE dimension='country') AS k1, max(pct) FILTER (WHERE dimension='country') AS p1, arg_max(key, pct) FILTER (WHERE dimension='age') AS a1, max(pct) FILTER (WHERE dimension='age') AS ap1, max(pct) FILTER (WHERE dimension='gender' AND key='female') AS f FROM audience WHERE dimension IN ('country','age','gender') GROUP BY creator_id`;
if (mode === 'agg') await t('agg', `COPY (${agg}) TO '/tmp/d1-y.out' (FORMAT csv)`);
if (mode === 'join') await t('join', `COPY (WITH a AS (${agg}) SELECT c.handle, c.platform, c.display_name, c.niche, c.country, c.city, c.language, c.followers, c.following, c.posts_count, c.verified, c.engagement_rate, c.avg_likes, c.avg_comments, c.avg_views, c.growth_30d_pct, c.audience_us_pct, c.authenticity_score, c.updated_at, a.k1, a.p1, a.a1, a.ap1, a.f FROM creators c LEFT JOIN a ON a.creator_id = c.creator_id ORDER BY c.followers DESC, c.creator_id) TO '/tmp/d1-y.out' (FORMAT csv)`);
await s.close();
