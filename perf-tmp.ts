import { Store } from './data/store.js';
import { filterSql, selectPage, countMatching } from './data/creators/creator-search.queries.js';
import { getCreatorProfile } from './data/creators/creator-profile.service.js';
const s = await Store.open('/tmp/helperA-1m/cds.duckdb', {});
console.log(await s.one('SELECT count(*) n FROM creators'));
const sets: any[] = [ {}, { niche: ['food'] }, { country: 'US', followers_min: 100000 }, { platform: ['tiktok'], engagement_min: 5 }, { q: ['travel'] }, { audience_country: 'US', audience_country_min_pct: 50 }, { audience_country: 'ES', audience_country_min_pct: 30 }, { verified: true, niche: ['tech','gaming'] } ];
async function time(label: string, fn: () => Promise<unknown>, n = 10) {
  const t: number[] = [];
  for (let i = 0; i < n; i++) { const a = performance.now(); await fn(); t.push(performance.now() - a); }
  t.sort((a, b) => a - b);
  console.log(label.padEnd(70), 'p50', t[Math.floor(n / 2)]!.toFixed(1), 'max', t[n - 1]!.toFixed(1));
}
for (const f of sets) {
  const w = filterSql(f);
  await time('page ' + JSON.stringify(f), () => selectPage(s, w, { key: 'followers', descending: true }, null, 21));
  await time('count ' + JSON.stringify(f), () => countMatching(s, w));
}
await time('page eng asc', () => selectPage(s, filterSql({}), { key: 'engagement_rate', descending: false }, null, 21));
await time('profile', () => getCreatorProfile(s, '@noahtech11', 'instagram'));
await s.close();
