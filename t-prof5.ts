import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from './config/config.js';
import { Store } from './data/store.js';
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
const store = await Store.open(testConfig(dir, {}).dbPath);
await store.run(`INSERT INTO deliveries SELECT 'dlv_' || i, 'evt_' || i, 'whk_1', 'sending', 1, now()::TIMESTAMP, null, null, now()::TIMESTAMP, now()::TIMESTAMP FROM range(20000) t(i)`);
const now = new Date().toISOString();
const R = `(SELECT unnest(from_json($records::JSON, '[{"id":"VARCHAR","webhook_id":"VARCHAR","attempt":"INTEGER","started":"TIMESTAMP","code":"INTEGER","latency":"DOUBLE","err":"VARCHAR","status":"VARCHAR","next_at":"TIMESTAMP"}]'), recursive := true))`;
const L = `(SELECT unnest($ids::VARCHAR[]) id, unnest($att::DOUBLE[])::INTEGER attempt, unnest($codes::DOUBLE[]) code, unnest($lat::DOUBLE[]) latency, unnest($errs::VARCHAR[]) err)`;
for (const size of [100, 500]) {
const tot: Record<string, number> = {};
async function time(label: string, f: () => Promise<unknown>) { const t = performance.now(); await f(); tot[label] = (tot[label] ?? 0) + performance.now() - t; }
const batches = 10000 / size;
for (let b = 0; b < batches; b++) {
  const ids = Array.from({ length: size }, (_, i) => 'dlv_' + ((size === 100 ? 0 : 10000) + b * size + i));
  const recs = JSON.stringify(ids.map((id) => ({ id, webhook_id: 'whk_1', attempt: 1, started: now, code: 200, latency: 1, err: null, status: 'succeeded', next_at: null })));
  await time('select1', () => store.all(`SELECT 1`));
  await time('parse', () => store.all(`SELECT count(*) FROM ${R}`, { records: recs }));
  await time('parse-lists', () => store.all(`SELECT count(*) FROM ${L}`, { ids, att: ids.map(() => 1), codes: ids.map(() => 200), lat: ids.map(() => 1.5), errs: ids.map(() => '') }));
  await time('insert', () => store.run(`INSERT INTO delivery_attempts SELECT id, attempt, $now::TIMESTAMP, code, latency, err FROM ${L} ON CONFLICT DO NOTHING`, { ids, att: ids.map(() => 1), codes: ids.map(() => 200), lat: ids.map(() => 1.5), errs: ids.map(() => ''), now }));
  await time('update', () => store.run(`UPDATE deliveries d SET status = 'succeeded', next_attempt_at = NULL, last_status_code = v.code, last_error = NULL, updated_at = $now::TIMESTAMP FROM ${L} v WHERE d.delivery_id = v.id AND d.attempts = v.attempt AND d.status = 'sending'`, { ids, att: ids.map(() => 1), codes: ids.map(() => 200), lat: ids.map(() => 1.5), errs: ids.map(() => ''), now }));
}
console.log(size, Object.fromEntries(Object.entries(tot).map(([k, v]) => [k, (v / batches).toFixed(2) + 'ms/batch'])));
}
