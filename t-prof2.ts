import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testConfig } from './config/config.js';
import { Store } from './data/store.js';
const dir = mkdtempSync(join(tmpdir(), 'prof-'));
const store = await Store.open(testConfig(dir, {}).dbPath);
await store.run(`INSERT INTO webhook_subscriptions (webhook_id, account_id, url, events, secret, created_at, updated_at) VALUES ('whk_1','a','http://127.0.0.1:1/',['*'],'whsec_AAAA',now()::TIMESTAMP,now()::TIMESTAMP)`);
await store.run(`INSERT INTO events (event_id, type, account_id, payload) SELECT 'evt_' || i, 'export.completed', 'a', json_object('i', i) FROM range(20000) t(i)`);
await store.run(`INSERT INTO deliveries SELECT 'dlv_' || i, 'evt_' || i, 'whk_1', 'pending', 0, now()::TIMESTAMP, null, null, now()::TIMESTAMP, now()::TIMESTAMP FROM range(20000) t(i)`);
async function time(label: string, f: () => Promise<unknown>) { const t = performance.now(); const r = await f(); console.log(label, (performance.now() - t).toFixed(1)); return r; }
const now = new Date().toISOString();
for (let k = 0; k < 3; k++) {
await time('select 1', () => store.one('SELECT 1'));
await time('begin/commit', () => store.transaction(async () => 1));
await time('log interrupted', () => store.run(`INSERT INTO delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error)
  SELECT delivery_id, attempts, updated_at, NULL, NULL, 'x' FROM deliveries WHERE status = 'sending' AND next_attempt_at <= $now::TIMESTAMP AND attempts > 0 ON CONFLICT DO NOTHING`, { now }));
for (const lim of [100, 500]) {
const picked = await time('pick window ' + lim, () => store.all(`WITH due AS (SELECT d.delivery_id, d.webhook_id, d.next_attempt_at, row_number() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.delivery_id) AS rn
    FROM deliveries d JOIN webhook_subscriptions s ON s.webhook_id = d.webhook_id
    WHERE d.status IN ('pending', 'sending') AND d.next_attempt_at <= $now::TIMESTAMP AND s.status = 'enabled')
  SELECT due.delivery_id FROM due WHERE due.rn <= 1000 ORDER BY due.next_attempt_at, due.delivery_id LIMIT $limit`, { now, limit: lim })) as { delivery_id: string }[];
await time('pick simple ' + lim, () => store.all(`SELECT delivery_id FROM deliveries WHERE status IN ('pending','sending') AND next_attempt_at <= $now::TIMESTAMP ORDER BY next_attempt_at LIMIT $limit`, { now, limit: lim }));
const ids = picked.map((p) => p.delivery_id);
await time('lease ' + lim, () => store.all(`UPDATE deliveries SET status = 'sending', attempts = attempts + 1, updated_at = $now::TIMESTAMP WHERE delivery_id IN (SELECT unnest($ids::VARCHAR[])) RETURNING delivery_id, attempts`, { ids, now }));
await time('load ' + lim, () => store.all(`SELECT d.delivery_id, s.url, e.type, CAST(e.payload AS VARCHAR) p FROM deliveries d JOIN events e ON e.event_id = d.event_id JOIN webhook_subscriptions s ON s.webhook_id = d.webhook_id WHERE d.delivery_id IN (SELECT unnest($ids::VARCHAR[]))`, { ids }));
await time('load via list join ' + lim, () => store.all(`SELECT d.delivery_id, s.url, e.type, CAST(e.payload AS VARCHAR) p FROM (SELECT unnest($ids::VARCHAR[]) id) v JOIN deliveries d ON d.delivery_id = v.id JOIN events e ON e.event_id = d.event_id JOIN webhook_subscriptions s ON s.webhook_id = d.webhook_id`, { ids }));
const recs = JSON.stringify(ids.map((id) => ({ id, webhook_id: 'whk_1', attempt: 1, started: now, code: 200, latency: 1, err: null, status: 'succeeded', next_at: null })));
const R = `(SELECT unnest(from_json($records::JSON, '[{"id":"VARCHAR","webhook_id":"VARCHAR","attempt":"INTEGER","started":"TIMESTAMP","code":"INTEGER","latency":"DOUBLE","err":"VARCHAR","status":"VARCHAR","next_at":"TIMESTAMP"}]'), recursive := true))`;
await time('insert attempts ' + lim, () => store.run(`INSERT INTO delivery_attempts SELECT id, attempt + ${k*10+lim}, started, code, latency, err FROM ${R} ON CONFLICT DO NOTHING`, { records: recs }));
await time('insert attempts noconflict ' + lim, () => store.run(`INSERT INTO delivery_attempts SELECT id, attempt + ${k*10+lim+1000}, started, code, latency, err FROM ${R}`, { records: recs }));
await time('update deliveries ' + lim, () => store.run(`UPDATE deliveries d SET status = v.status, next_attempt_at = v.next_at, last_status_code = v.code, last_error = v.err, updated_at = $now::TIMESTAMP FROM ${R} v WHERE d.delivery_id = v.id`, { records: recs, now }));
}
}
