import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from './config/config.js';
import { Store } from './data/store.js';
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
const store = await Store.open(testConfig(dir, {}).dbPath);
await store.run(`INSERT INTO webhook_subscriptions (webhook_id, account_id, url, events, secret, created_at, updated_at) VALUES ('whk_1','a','http://127.0.0.1:1/',['*'],'whsec_AAAA',now()::TIMESTAMP,now()::TIMESTAMP)`);
await store.run(`INSERT INTO deliveries SELECT 'dlv_' || i, 'evt_' || i, 'whk_1', 'sending', 1, now()::TIMESTAMP, null, null, now()::TIMESTAMP, now()::TIMESTAMP FROM range(10000) t(i)`);
const now = new Date().toISOString();
const R = `(SELECT unnest(from_json($records::JSON, '[{"id":"VARCHAR","webhook_id":"VARCHAR","attempt":"INTEGER","started":"TIMESTAMP","code":"INTEGER","latency":"DOUBLE","err":"VARCHAR","status":"VARCHAR","next_at":"TIMESTAMP"}]'), recursive := true))`;
const tot: Record<string, number> = {};
async function time(label: string, f: () => Promise<unknown>) { const t = performance.now(); await f(); tot[label] = (tot[label] ?? 0) + performance.now() - t; }
for (let b = 0; b < 50; b++) {
  const ids = Array.from({ length: 100 }, (_, i) => 'dlv_' + (b * 100 + i));
  const recs = JSON.stringify(ids.map((id) => ({ id, webhook_id: 'whk_1', attempt: 1, started: now, code: 200, latency: 1, err: null, status: 'succeeded', next_at: null })));
  await time('parse', () => store.all(`SELECT count(*) FROM ${R}`, { records: recs }));
  await time('insert', () => store.run(`INSERT INTO delivery_attempts SELECT id, attempt, started, code, latency, err FROM ${R} ON CONFLICT DO NOTHING`, { records: recs }));
  await time('update', () => store.run(`UPDATE deliveries d SET status = v.status, next_attempt_at = v.next_at, last_status_code = v.code, last_error = v.err, updated_at = $now::TIMESTAMP FROM ${R} v WHERE d.delivery_id = v.id AND d.attempts = v.attempt AND d.status = 'sending'`, { records: recs, now }));
  await time('update-list', () => store.run(`UPDATE deliveries d SET status = 'succeeded', next_attempt_at = NULL, last_status_code = 200, last_error = NULL, updated_at = $now::TIMESTAMP WHERE d.delivery_id IN (SELECT unnest($ids::VARCHAR[]))`, { ids, now }));
  await time('health', () => store.run(`UPDATE webhook_subscriptions SET failing_since = NULL WHERE webhook_id IN (SELECT unnest($ids::VARCHAR[])) AND failing_since IS NOT NULL`, { ids: ['whk_1'] }));
  await time('txn', () => store.transaction(async () => 1));
}
console.log(tot);
