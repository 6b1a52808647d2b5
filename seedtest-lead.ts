import { Store } from '/work/main/data/store.js';
import { seedDemoData } from '/work/main/data/seed/demo-generator.js';
const n = Number(process.argv[2] ?? 2000);
const dir = `/tmp/seed${n}`;
const s = await Store.open(`${dir}/cds.duckdb`);
let last = performance.now();
const r = await seedDemoData(s, { creators: n, seed: 42, asOf: '2026-11-21', demoAccountId: 'acct_demo', onProgress: (st) => { const now = performance.now(); console.log(((now-last)/1000).toFixed(1)+'s', '->', st); last = now; } });
console.log(r);
await s.close();
