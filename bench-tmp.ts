import { runApiBench } from './bench/api.bench.js';
const r = await runApiBench({ creators: 1_000_000, dir: '/tmp/helperA-1m', quick: process.argv[2] !== 'full', seconds: Number(process.argv[3] ?? 3) });
console.log(JSON.stringify(r, null, 1));
